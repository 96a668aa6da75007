import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { defaultEncodingParameters } from '@kino/proto/contract';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  Kino,
  KinoError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
  UploadError,
  VideoProcessingFailedError,
  WaitTimeoutError,
  type Video,
  type VideoDetails,
} from './index.ts';
import { Kino as NodeKino } from './node.ts';

const apiUrl = 'http://api.test/v1/api';
const apiKey = `svc_test_${'a'.repeat(32)}`;

interface Call {
  url: string;
  method: string;
  headers: Headers;
  signal?: AbortSignal;
  body: unknown;
}

type Reply = Response | Error | ((call: Call) => Response | Promise<Response>);

/** A fetch that answers from a script and records what it was asked. */
function fakeFetch(replies: Reply[]) {
  const calls: Call[] = [];
  const fetch = async (input: string, init: RequestInit): Promise<Response> => {
    const call: Call = {
      url: input,
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: init.body,
      signal: init.signal ?? undefined,
    };
    calls.push(call);
    const reply = replies.shift();
    if (!reply) throw new Error(`unexpected request ${call.method} ${call.url}`);
    if (reply instanceof Error) throw reply;
    return typeof reply === 'function' ? await reply(call) : reply;
  };
  return { fetch, calls };
}

function json(status: number, payload: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(payload), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function errorEnvelope(status: number, code: string, detail: string, extra: Record<string, unknown> = {}) {
  return { title: 'Error', status, detail, code, ...extra };
}

function video(id: string): Video {
  return {
    id,
    name: id,
    duration: '0:03',
    durationSeconds: 3,
    createdAt: '2026-01-01T00:00:00.000Z',
    thumbnailUrl: `http://delivery.test/t/${id}/320x180.jpg`,
    status: 'ready',
    served: '0 views',
    allowPublicAccess: true,
    videoQuality: 'standard',
  };
}

function details(id: string, status: 'ready' | 'transcoding' | 'failed'): VideoDetails {
  const { status: _listStatus, ...rest } = video(id);
  return {
    ...rest,
    publicID: id,
    envId: 'env_1',
    status: { ready: status === 'ready', transcoding: status === 'transcoding', failed: status === 'failed' },
    ...defaultEncodingParameters,
    encodingMode: 'fixed',
    additionalCodecs: [],
    nodeLabels: [],
    hardwareEncoding: 'never',
    encodings: [],
    captions: [],
  };
}

function pagination(page: number, totalPages: number, total: number, pageSize: number) {
  return { total, page, pageSize, totalPages, hasNext: page < totalPages, hasPrevious: page > 1 };
}

describe('Kino client', () => {
  it('sends the key, unwraps body and builds paths from the ids', async () => {
    const { fetch, calls } = fakeFetch([
      json(200, { body: { environments: [{ id: 'env_1', name: 'dev', createdAt: 'x' }] } }),
    ]);
    const kino = new Kino({ apiUrl, apiKey, fetch });
    const environments = await kino.environments.list('org_1');
    assert.deepEqual(environments, [{ id: 'env_1', name: 'dev', createdAt: 'x' }]);
    assert.equal(calls[0]!.url, `${apiUrl}/org_1/environments`);
    assert.equal(calls[0]!.headers.get('x-api-key'), apiKey);
    assert.equal(calls[0]!.headers.get('authorization'), null);
  });

  it("changes an environment's just-in-time setting with PATCH, null (the farm's default) sent as null", async () => {
    const environment = { id: 'env_1', name: 'dev', createdAt: 'x', justInTime: null };
    const { fetch, calls } = fakeFetch([json(200, { body: environment })]);
    const kino = new Kino({ apiUrl, apiKey, fetch });
    assert.deepEqual(await kino.environments.update('org_1', 'env_1', { justInTime: null }), environment);
    assert.equal(calls[0]!.method, 'PATCH');
    assert.equal(calls[0]!.url, `${apiUrl}/org_1/environments/env_1`);
    assert.deepEqual(JSON.parse(calls[0]!.body as string), { justInTime: null });
  });

  it('sends JSON bodies and query parameters as the spec names them', async () => {
    const { fetch, calls } = fakeFetch([
      json(200, { body: { videoID: 'vid_1' } }),
      json(200, {
        body: { signed_url: 'http://delivery.test/v1/private/vid_1/master.m3u8?token=t', expires_in: 14_400 },
      }),
      json(200, { body: { status: 'deleted', deletedAt: '2026-01-01T00:00:00Z', message: 'deleted' } }),
      json(200, { body: { id: 'vid_1', name: 'Renamed', metadata: { externalId: 'post-42' } } }),
      json(200, {
        body: {
          videos: [],
          pagination: { total: 0, page: 1, pageSize: 20, totalPages: 0, hasNext: false, hasPrevious: false },
        },
      }),
    ]);
    const kino = new Kino({ apiUrl, apiKey, fetch });
    const processed = await kino.videos.process('org_1', 'env_1', {
      storagePath: 'uploads/org_1/env_1/upl_1/a.mp4',
      videoQuality: 'high',
      allowPublicAccess: false,
      maxEdgeLength: 720,
    });
    assert.equal(processed.videoID, 'vid_1');
    assert.equal(calls[0]!.method, 'POST');
    assert.equal(calls[0]!.url, `${apiUrl}/org_1/environments/env_1/videos/process`);
    assert.equal(calls[0]!.headers.get('content-type'), 'application/json');
    assert.deepEqual(JSON.parse(calls[0]!.body as string), {
      storagePath: 'uploads/org_1/env_1/upl_1/a.mp4',
      videoQuality: 'high',
      allowPublicAccess: false,
      maxEdgeLength: 720,
    });

    const signed = await kino.playback.signedUrl('org_1', 'vid_1', {
      expiration: '4h',
      domains: ['a.example', 'b.example'],
    });
    assert.equal(signed.expires_in, 14_400);
    const signedUrl = new URL(calls[1]!.url);
    assert.equal(signedUrl.pathname, '/v1/api/org_1/videos/vid_1/signed-url');
    assert.equal(signedUrl.searchParams.get('expiration'), '4h');
    assert.equal(signedUrl.searchParams.get('domains'), 'a.example,b.example');

    await kino.videos.delete('org_1', 'vid_1', { reason: 'user_request' });
    assert.equal(calls[2]!.method, 'DELETE');
    assert.deepEqual(JSON.parse(calls[2]!.body as string), { reason: 'user_request' });

    const updated = await kino.videos.update('org_1', 'vid_1', {
      videoName: 'Renamed',
      description: null,
      metadata: { externalId: 'post-42', passthrough: null },
    });
    assert.equal(updated.metadata?.externalId, 'post-42');
    assert.equal(calls[3]!.method, 'PATCH');
    assert.equal(calls[3]!.url, `${apiUrl}/org_1/videos/vid_1`);
    assert.deepEqual(JSON.parse(calls[3]!.body as string), {
      videoName: 'Renamed',
      description: null,
      metadata: { externalId: 'post-42', passthrough: null },
    });
    await kino.videos.list('org_1', 'env_1', { externalId: 'post-42' });
    assert.equal(new URL(calls[4]!.url).searchParams.get('externalId'), 'post-42');
  });

  it('throws one error class per status family, carrying status, code, detail, errors and the request id', async () => {
    const cases = [
      [400, 'invalid_page_size', BadRequestError],
      [401, 'unauthorized', AuthenticationError],
      [403, 'forbidden', PermissionDeniedError],
      [404, 'video_not_found', NotFoundError],
      [409, 'processing_in_progress', ConflictError],
      [422, 'unsupported_codec', UnprocessableEntityError],
    ] as const;
    for (const [status, code, ErrorClass] of cases) {
      const errors = [{ message: 'must be <= 100', location: 'query.pageSize', value: 101 }];
      const { fetch } = fakeFetch([
        json(status, errorEnvelope(status, code, `the ${code} detail`, { errors }), {
          'x-request-id': `req_${status}`,
        }),
      ]);
      const kino = new Kino({ apiUrl, apiKey, fetch });
      await assert.rejects(kino.videos.get('org_1', 'vid_1'), (error: unknown) => {
        assert.ok(error instanceof ErrorClass, `${status} → ${ErrorClass.name}`);
        assert.ok(error instanceof KinoError);
        assert.equal(error.status, status);
        assert.equal(error.code, code);
        assert.equal(error.detail, `the ${code} detail`);
        assert.deepEqual(error.errors, errors);
        assert.equal(error.requestId, `req_${status}`);
        return true;
      });
    }
  });

  it('retries 5xx and network failures, then succeeds', async () => {
    const { fetch, calls } = fakeFetch([
      json(503, errorEnvelope(503, 'unavailable', 'down'), { 'retry-after': '0' }),
      new TypeError('fetch failed'),
      json(200, { body: { environments: [] } }),
    ]);
    const kino = new Kino({ apiUrl, apiKey, fetch, maxRetries: 2 });
    assert.deepEqual(await kino.environments.list('org_1'), []);
    assert.equal(calls.length, 3);
  });

  it('sends a fresh Idempotency-Key with each POST, the same one on its retries', async () => {
    const { fetch, calls } = fakeFetch([
      json(503, errorEnvelope(503, 'service_unavailable', 'down'), { 'retry-after': '0' }),
      new TypeError('fetch failed'),
      json(200, { body: { videoID: 'vid_1' } }),
      json(200, { body: { videoID: 'vid_2' } }),
      json(200, { body: { environments: [] } }),
    ]);
    const kino = new Kino({ apiUrl, apiKey, fetch, maxRetries: 2 });
    const params = {
      storagePath: 'uploads/org_1/env_1/upl_1/a.mp4',
      videoQuality: 'standard',
      allowPublicAccess: true,
    } as const;
    assert.equal((await kino.videos.process('org_1', 'env_1', params)).videoID, 'vid_1');
    assert.equal((await kino.videos.process('org_1', 'env_1', params)).videoID, 'vid_2');
    await kino.environments.list('org_1');
    const keys = calls.map((call) => call.headers.get('idempotency-key'));
    assert.match(keys[0] ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(keys[1], keys[0], 'a retry sends the key of the request it repeats');
    assert.equal(keys[2], keys[0]);
    assert.ok(keys[3] && keys[3] !== keys[0], 'another request, another key');
    assert.equal(keys[4], null, 'a GET carries none');
  });

  it("takes per-call settings over the client's: retries, timeout, Idempotency-Key", async () => {
    const { fetch, calls } = fakeFetch([
      json(503, errorEnvelope(503, 'service_unavailable', 'down'), { 'retry-after': '0' }),
      // Never answers: only this call's 20 ms timeout ends it.
      (call) =>
        new Promise<Response>((_resolve, reject) =>
          call.signal?.addEventListener('abort', () => reject(new DOMException('timed out', 'TimeoutError'))),
        ),
      json(200, { body: { videoID: 'vid_1' } }),
      json(200, { body: { videoID: 'vid_1' } }),
    ]);
    const kino = new Kino({ apiUrl, apiKey, fetch, maxRetries: 3, timeoutMs: 60_000 });
    await assert.rejects(kino.environments.list('org_1', { maxRetries: 0 }), InternalServerError);
    assert.equal(calls.length, 1, 'maxRetries: 0 makes one attempt');
    await assert.rejects(kino.environments.list('org_1', { maxRetries: 0, timeoutMs: 20 }), APIConnectionTimeoutError);
    const params = {
      storagePath: 'uploads/org_1/env_1/upl_1/a.mp4',
      videoQuality: 'standard',
      allowPublicAccess: true,
    } as const;
    await kino.videos.process('org_1', 'env_1', params, { idempotencyKey: 'order-42-video' });
    await kino.videos.process('org_1', 'env_1', params, { idempotencyKey: 'order-42-video', maxRetries: 0 });
    assert.deepEqual(
      calls.slice(2).map((call) => call.headers.get('idempotency-key')),
      ['order-42-video', 'order-42-video'],
    );
  });

  it('answers the HTTP response beside the data with withResponse()', async () => {
    const { fetch } = fakeFetch([
      json(
        200,
        { body: { environments: [{ id: 'env_1', name: 'production', createdAt: '2026-01-01T00:00:00Z' }] } },
        { 'x-request-id': 'req_abc', 'x-ratelimit-remaining': '99' },
      ),
      json(200, { body: { environments: [] } }),
    ]);
    const kino = new Kino({ apiUrl, apiKey, fetch });
    const { data, response } = await kino.environments.list('org_1').withResponse();
    assert.deepEqual(
      data.map((e) => e.id),
      ['env_1'],
    );
    assert.equal(response.headers.get('x-request-id'), 'req_abc');
    assert.equal(response.headers.get('x-ratelimit-remaining'), '99');
    assert.equal(response.status, 200);
    // Still a promise of the data when awaited as one.
    assert.deepEqual(await kino.environments.list('org_1'), []);
  });

  it("gives up after maxRetries with the last answer's error", async () => {
    const { fetch, calls } = fakeFetch([
      json(500, errorEnvelope(500, 'internal', 'boom'), { 'retry-after': '0' }),
      json(500, errorEnvelope(500, 'internal', 'boom'), { 'retry-after': '0' }),
    ]);
    const kino = new Kino({ apiUrl, apiKey, fetch, maxRetries: 1 });
    await assert.rejects(kino.environments.list('org_1'), InternalServerError);
    assert.equal(calls.length, 2);

    const offline = fakeFetch([new TypeError('fetch failed')]);
    await assert.rejects(
      new Kino({ apiUrl, apiKey, fetch: offline.fetch, maxRetries: 0 }).environments.list('org_1'),
      APIConnectionError,
    );
  });

  it('does not retry a client error', async () => {
    const { fetch, calls } = fakeFetch([json(400, errorEnvelope(400, 'already_deleted', 'gone'))]);
    const kino = new Kino({ apiUrl, apiKey, fetch, maxRetries: 3 });
    await assert.rejects(kino.videos.delete('org_1', 'vid_1'), BadRequestError);
    assert.equal(calls.length, 1);
  });

  it('does not wait out a rate-limit reset longer than maxRetryDelayMs', async () => {
    const reset = Math.ceil(Date.now() / 1000) + 3600;
    const { fetch, calls } = fakeFetch([
      json(429, errorEnvelope(429, 'rate_limit_exceeded', 'slow down'), {
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(reset),
      }),
    ]);
    const kino = new Kino({ apiUrl, apiKey, fetch, maxRetries: 3 });
    await assert.rejects(
      kino.uploads.createUrl('org_1', 'env_1', { filename: 'a.mp4', fileSize: 10 }),
      (error: unknown) => {
        assert.ok(error instanceof RateLimitError);
        assert.equal(error.code, 'rate_limit_exceeded');
        assert.equal(error.resetAt?.getTime(), reset * 1000);
        return true;
      },
    );
    assert.equal(calls.length, 1);
  });

  it('walks every page with for await, fetching a page only when needed', async () => {
    const pageOf = (page: number, ids: string[]) =>
      json(200, { body: { videos: ids.map(video), pagination: pagination(page, 3, 5, 2) } });
    const { fetch, calls } = fakeFetch([pageOf(1, ['v1', 'v2']), pageOf(2, ['v3', 'v4']), pageOf(3, ['v5'])]);
    const kino = new Kino({ apiUrl, apiKey, fetch });
    const seen: string[] = [];
    for await (const item of kino.videos.list('org_1', 'env_1', { pageSize: 2, status: 'ready' })) {
      seen.push(item.id);
      if (item.id === 'v2') assert.equal(calls.length, 1, 'page 2 is fetched only once page 1 is used up');
    }
    assert.deepEqual(seen, ['v1', 'v2', 'v3', 'v4', 'v5']);
    assert.deepEqual(
      calls.map((c) => new URL(c.url).searchParams.get('page')),
      ['1', '2', '3'],
    );
    assert.equal(new URL(calls[0]!.url).searchParams.get('pageSize'), '2');
    assert.equal(new URL(calls[0]!.url).searchParams.get('status'), 'ready');
  });

  it('awaits a list for one page, with getNextPage; listAll uses the organization path', async () => {
    const { fetch, calls } = fakeFetch([
      json(200, { body: { videos: [{ ...video('v1'), envId: 'env_1' }], pagination: pagination(1, 2, 2, 1) } }),
      json(200, { body: { videos: [{ ...video('v2'), envId: 'env_2' }], pagination: pagination(2, 2, 2, 1) } }),
    ]);
    const kino = new Kino({ apiUrl, apiKey, fetch });
    const first = await kino.videos.listAll('org_1', { pageSize: 1 });
    assert.equal(calls[0]!.url.startsWith(`${apiUrl}/org_1/videos?`), true);
    assert.equal(first.videos[0]!.envId, 'env_1');
    assert.equal(first.hasNextPage(), true);
    const second = await first.getNextPage();
    assert.equal(second.videos[0]!.envId, 'env_2');
    assert.equal(second.hasNextPage(), false);
  });

  it('sends nothing for a list that is never used', async () => {
    const { fetch, calls } = fakeFetch([]);
    const kino = new Kino({ apiUrl, apiKey, fetch });
    void kino.videos.list('org_1', 'env_1');
    await new Promise((r) => setImmediate(r));
    assert.equal(calls.length, 0);
  });

  it('waitUntilReady resolves on ready and rejects with typed errors on failed or at the deadline', async () => {
    const ready = fakeFetch([
      json(200, { body: details('v1', 'transcoding') }),
      json(200, { body: details('v1', 'ready') }),
    ]);
    const polled: boolean[] = [];
    const video1 = await new Kino({ apiUrl, apiKey, fetch: ready.fetch }).videos.waitUntilReady('org_1', 'v1', {
      intervalMs: 1,
      onPoll: (v) => polled.push(v.status.ready),
    });
    assert.equal(video1.status.ready, true);
    assert.deepEqual(polled, [false, true]);
    assert.equal(ready.calls[0]!.url, `${apiUrl}/org_1/videos/v1/details`);

    const failed = fakeFetch([json(200, { body: details('v2', 'failed') })]);
    await assert.rejects(
      new Kino({ apiUrl, apiKey, fetch: failed.fetch }).videos.waitUntilReady('org_1', 'v2', { intervalMs: 1 }),
      (error: unknown) => error instanceof VideoProcessingFailedError && error.video.id === 'v2',
    );

    const slow = fakeFetch(Array.from({ length: 50 }, () => json(200, { body: details('v3', 'transcoding') })));
    await assert.rejects(
      new Kino({ apiUrl, apiKey, fetch: slow.fetch }).videos.waitUntilReady('org_1', 'v3', {
        intervalMs: 5,
        timeoutMs: 20,
      }),
      WaitTimeoutError,
    );
  });

  it('putFile PUTs to the signed URL with the Content-Type and without the API key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kino-sdk-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'clip.mov');
    writeFileSync(file, Buffer.alloc(1234, 7));
    const received: { size: number; type: string | null; key: string | null }[] = [];
    const storageAnswer = async (call: Call) => {
      // The file goes out as a stream of chunks (uploads are timed by progress): count what arrives.
      const size = (await new Response(call.body as ReadableStream<Uint8Array>).arrayBuffer()).byteLength;
      received.push({ size, type: call.headers.get('content-type'), key: call.headers.get('x-api-key') });
      return new Response('', { status: 200 });
    };
    const ticket = {
      signedURL: 'http://s3.test/kino/uploads/a?X-Amz-Signature=abc',
      bucketPath: 'uploads/org_1/env_1/upl_1/clip.mov',
      expiresAt: 0,
    };
    const { fetch, calls } = fakeFetch([
      storageAnswer,
      json(200, { body: ticket }),
      storageAnswer,
      new Response('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>', { status: 403 }),
    ]);
    // The Node entry's client: the core takes no file paths.
    const kino = new NodeKino({ apiUrl, apiKey, fetch });

    await kino.uploads.putFile(ticket, file, 'video/quicktime');
    assert.equal(calls[0]!.method, 'PUT');
    assert.equal(calls[0]!.url, ticket.signedURL);
    assert.deepEqual(received[0], { size: 1234, type: 'video/quicktime', key: null });

    const uploaded = await kino.uploads.upload('org_1', 'env_1', file);
    assert.equal(uploaded.bucketPath, ticket.bucketPath);
    assert.deepEqual(JSON.parse(calls[1]!.body as string), {
      filename: 'clip.mov',
      fileSize: 1234,
      contentType: 'video/quicktime',
    });
    assert.deepEqual(received[1], { size: 1234, type: 'video/quicktime', key: null });

    await assert.rejects(kino.uploads.putFile(ticket, new Uint8Array([1, 2, 3])), (error: unknown) => {
      assert.ok(error instanceof UploadError);
      assert.equal(error.status, 403);
      assert.match(error.message, /AccessDenied/);
      return true;
    });
  });

  it('health returns a degraded status instead of throwing, without retries', async () => {
    const degraded = { status: 'degraded', version: '0.1.0', checks: { database: 'ok', temporal: { status: 'down' } } };
    const { fetch, calls } = fakeFetch([json(503, { body: degraded })]);
    const health = await new Kino({ apiUrl, apiKey, fetch, maxRetries: 3 }).health();
    assert.deepEqual(health, degraded);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.url, `${apiUrl}/health`);
  });

  it('fromDevStack reads .kino/dev.json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kino-sdk-dev-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const devJson = {
      apiUrl,
      deliveryUrl: 'http://delivery.test',
      orgId: 'org_9',
      envId: 'env_9',
      apiKey,
      databaseUrl: 'postgres://x',
    };
    writeFileSync(join(dir, 'dev.json'), JSON.stringify(devJson));
    const { fetch, calls } = fakeFetch([json(200, { body: { environments: [] } })]);
    const kino = await NodeKino.fromDevStack({ path: join(dir, 'dev.json'), fetch });
    assert.equal(kino.devStack?.orgId, 'org_9');
    await kino.environments.list(kino.devStack!.orgId);
    assert.equal(calls[0]!.headers.get('x-api-key'), apiKey);
    await assert.rejects(NodeKino.fromDevStack({ path: join(dir, 'missing.json') }), /no dev stack found/);
  });

  it('refuses to start without a URL or key', () => {
    const saved = { url: process.env.KINO_API_URL, key: process.env.KINO_API_KEY };
    delete process.env.KINO_API_URL;
    delete process.env.KINO_API_KEY;
    try {
      assert.throws(() => new Kino({ apiKey }), /apiUrl is required/);
      assert.throws(() => new Kino({ apiUrl }), /apiKey is required/);
    } finally {
      if (saved.url !== undefined) process.env.KINO_API_URL = saved.url;
      if (saved.key !== undefined) process.env.KINO_API_KEY = saved.key;
    }
  });
});

describe('PagePromise', () => {
  it('is a real, lazy Promise', async () => {
    const { fetch, calls } = fakeFetch([json(404, errorEnvelope(404, 'environment_not_found', 'no such environment'))]);
    const kino = new Kino({ apiUrl, apiKey, fetch });
    const listing = kino.videos.list('org_1', 'env_missing');
    assert.ok(listing instanceof Promise);
    assert.equal(calls.length, 0);
    await assert.rejects(listing, NotFoundError);
    assert.equal(calls.length, 1);
    const caught = await listing.catch((error: unknown) => (error as NotFoundError).code);
    assert.equal(caught, 'environment_not_found');
    assert.equal(calls.length, 1, 'the first page is fetched once');
  });
});

describe('analytics', () => {
  it('calls each endpoint at its path (environment variants included) and returns its records', async () => {
    const daily = {
      deliveryDate: '2026-11-22T00:00:00Z',
      segmentsServed: 3,
      uniqueVideosServed: 1,
      hdSegments: 0,
      sdSegments: 3,
      ldSegments: 0,
    };
    const experience = { key: 'Firefox', views: 2, startupMsP50: 610, startupMsP95: null };
    const { fetch, calls } = fakeFetch([
      json(200, { body: { usage: [] } }),
      json(200, { body: { dailyUsage: [daily] } }),
      json(200, { body: { storage: { totalVideos: 0 } } }),
      json(200, { body: { summary: { vidId: 'vid_1' }, resolutions: [] } }),
      json(200, { body: { distribution: [] } }),
      json(400, errorEnvelope(400, 'invalid_period_days', 'periodDays must be at most 365')),
      json(200, { body: { experience: [experience] } }),
      json(200, { body: { experience: [] } }),
      json(200, { body: { experience: [] } }),
    ]);
    const kino = new Kino({ apiUrl, apiKey, fetch });
    assert.deepEqual(await kino.analytics.usage('org_1', { periodDays: 7 }), []);
    assert.deepEqual(
      await kino.analytics.daily('org_1', { envId: 'env_1', startDate: '2026-11-22', endDate: '2026-11-22' }),
      [daily],
    );
    assert.deepEqual(await kino.analytics.storage('org_1'), { totalVideos: 0 });
    assert.deepEqual(await kino.analytics.resolution('org_1', 'vid_1'), {
      summary: { vidId: 'vid_1' },
      resolutions: [],
    });
    assert.deepEqual(await kino.analytics.resolutionDistribution('org_1', { startDate: '2026-01-01' }), []);
    await assert.rejects(
      kino.analytics.usage('org_1', { periodDays: 400 }),
      (error: unknown) => error instanceof BadRequestError && error.code === 'invalid_period_days',
    );
    assert.deepEqual(await kino.analytics.experience('org_1', { groupBy: 'browser', startDate: '2026-11-01' }), [
      experience,
    ]);
    assert.deepEqual(await kino.analytics.experience('org_1', { envId: 'env_1' }), []);
    assert.deepEqual(await kino.analytics.experience('org_1', { videoId: 'vid_1', groupBy: 'os' }), []);
    assert.deepEqual(
      calls.map((c) => c.url.slice(apiUrl.length)),
      [
        '/org_1/analytics/usage?periodDays=7',
        '/org_1/environments/env_1/analytics/daily?startDate=2026-11-22&endDate=2026-11-22',
        '/org_1/analytics/storage',
        '/org_1/videos/vid_1/analytics/resolution',
        '/org_1/analytics/resolution-distribution?startDate=2026-01-01',
        '/org_1/analytics/usage?periodDays=400',
        '/org_1/analytics/experience?startDate=2026-11-01&groupBy=browser',
        '/org_1/environments/env_1/analytics/experience',
        '/org_1/videos/vid_1/analytics/experience?groupBy=os',
      ],
    );
  });
});
