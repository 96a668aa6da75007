// The upload helper's multipart path against an in-memory stand-in for the API and storage (a
// fetch function): parts in flight, progress, resume from the parts that arrived, a refused part
// URL renewed, and an upload aborted and forgotten when the API refuses it.
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { Kino, type UploadProgress, type UploadResumeStore } from '../index.ts';

const partSize = 1000;
const fileSize = 4500; // five parts, the last one short
const content = Uint8Array.from({ length: fileSize }, (_, i) => i % 251);

interface FakeOptions {
  /** Parts storage already holds (a previous run's). */
  stored?: number[];
  /** Part numbers whose first PUT storage refuses with 403 (an expired URL). */
  expireOnce?: number[];
  /** The API refuses part URLs with this 4xx. */
  refuseUrls?: number;
}

function fakeService({ stored = [], expireOnce = [], refuseUrls }: FakeOptions = {}) {
  const parts = new Map<number, number>(stored.map((n) => [n, Math.min(partSize, fileSize - (n - 1) * partSize)]));
  const log: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const expiring = new Set(expireOnce);
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(status < 300 ? { body } : body), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  const fetch = async (input: string, init: RequestInit): Promise<Response> => {
    const url = new URL(input);
    const method = init.method ?? 'GET';
    if (url.host === 's3.test') {
      const partNumber = Number(url.searchParams.get('partNumber'));
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        const size = (await new Response(init.body as ReadableStream).arrayBuffer()).byteLength;
        if (expiring.delete(partNumber))
          return new Response('<Error><Code>AccessDenied</Code></Error>', { status: 403 });
        log.push(`PUT ${partNumber}`);
        parts.set(partNumber, size);
        return new Response('', { status: 200, headers: { etag: `"e${partNumber}"` } });
      } finally {
        inFlight -= 1;
      }
    }
    const path = url.pathname.replace('/v1/api/org_1/environments/env_1', '');
    log.push(`${method} ${path}`);
    if (method === 'POST' && path === '/uploads/multipart')
      return json({
        uploadId: 'upl_1',
        bucketPath: 'uploads/org_1/env_1/upl_1/a.mp4',
        partSize,
        partCount: 5,
        expiresAt: 1,
      });
    if (method === 'GET' && path === '/uploads/multipart/upl_1/parts')
      return json({ parts: [...parts].map(([partNumber, size]) => ({ partNumber, size, etag: 'x' })) });
    if (method === 'POST' && path === '/uploads/multipart/upl_1/parts') {
      if (refuseUrls)
        return json({ title: 'Bad', status: refuseUrls, detail: 'no', code: 'invalid_part_number' }, refuseUrls);
      const { partNumbers } = JSON.parse(init.body as string) as { partNumbers: number[] };
      return json({
        parts: partNumbers.map((n) => ({ partNumber: n, signedURL: `http://s3.test/b/k?partNumber=${n}` })),
        expiresAt: 1,
      });
    }
    if (method === 'POST' && path === '/uploads/multipart/upl_1/complete')
      return json({ bucketPath: 'uploads/org_1/env_1/upl_1/a.mp4', fileSize });
    if (method === 'DELETE' && path === '/uploads/multipart/upl_1')
      return json({ uploadId: 'upl_1', status: 'aborted' });
    throw new Error(`unexpected ${method} ${path}`);
  };
  return { fetch, log, parts, maxInFlight: () => maxInFlight };
}

function memoryStore(): UploadResumeStore & { entries: Map<string, unknown> } {
  const entries = new Map<string, unknown>();
  return {
    entries,
    get: async (key) => entries.get(key),
    set: async (key, state) => void entries.set(key, state),
    delete: async (key) => void entries.delete(key),
  };
}

const client = (fetch: ReturnType<typeof fakeService>['fetch']) =>
  new Kino({ apiUrl: 'http://api.test/v1/api', apiKey: 'svc_test_x', fetch, maxRetries: 0 });
const options = { filename: 'a.mp4', multipartThreshold: partSize, partsInFlight: 2 };

describe('uploads.upload in parts', () => {
  it('sends every part, at most partsInFlight at once, reports progress to the total, and completes', async () => {
    const service = fakeService();
    const progress: UploadProgress[] = [];
    const result = await client(service.fetch).uploads.upload('org_1', 'env_1', content, {
      ...options,
      onProgress: (p) => progress.push(p),
    });
    assert.deepEqual(result, {
      bucketPath: 'uploads/org_1/env_1/upl_1/a.mp4',
      fileSize,
      contentType: 'video/mp4',
      partCount: 5,
      resumedBytes: 0,
      expiresAt: 1,
    });
    assert.deepEqual([...service.parts.keys()].sort(), [1, 2, 3, 4, 5]);
    assert.equal(service.parts.get(5), 500);
    assert.ok(service.maxInFlight() <= 2 && service.maxInFlight() >= 1);
    assert.equal(service.log.at(-1), 'POST /uploads/multipart/upl_1/complete');
    assert.deepEqual(progress.at(-1), { ...progress.at(-1), bytesSent: fileSize, totalBytes: fileSize });
  });

  it('resumes from the store: lists the parts that arrived and sends only the others', async () => {
    const store = memoryStore();
    // Storage already holds parts 1 and 3; the first run is stopped as its first part goes out.
    const service = fakeService({ stored: [1, 3] });
    const stop = new AbortController();
    const interrupted = client(async (input, init) => {
      if (new URL(input).host === 's3.test') {
        stop.abort(new Error('killed'));
        throw stop.signal.reason;
      }
      return service.fetch(input, init);
    }).uploads.upload('org_1', 'env_1', content, { ...options, resumeStore: store, signal: stop.signal });
    await assert.rejects(interrupted, /killed/);
    assert.equal(store.entries.size, 1, 'the interrupted upload is remembered');
    service.log.length = 0;

    const progress: UploadProgress[] = [];
    const result = await client(service.fetch).uploads.upload('org_1', 'env_1', content, {
      ...options,
      resumeStore: store,
      onProgress: (p) => progress.push(p),
    });
    assert.equal(result.resumedBytes, 2 * partSize);
    assert.deepEqual(service.log.filter((line) => line.startsWith('PUT')).sort(), ['PUT 2', 'PUT 4', 'PUT 5']);
    assert.ok(!service.log.includes('POST /uploads/multipart'), 'no new upload started');
    assert.equal(store.entries.size, 0, 'forgotten once complete');
    assert.equal(progress.at(-1)?.bytesSent, fileSize);
  });

  it('renews a part URL storage refuses with 403 (expired), once', async () => {
    const service = fakeService({ expireOnce: [2] });
    await client(service.fetch).uploads.upload('org_1', 'env_1', content, options);
    assert.deepEqual([...service.parts.keys()].sort(), [1, 2, 3, 4, 5]);
  });

  it('aborts the upload and forgets it when the API refuses a request', async () => {
    const store = memoryStore();
    const service = fakeService({ refuseUrls: 400 });
    await assert.rejects(
      client(service.fetch).uploads.upload('org_1', 'env_1', content, { ...options, resumeStore: store }),
      /invalid_part_number/,
    );
    assert.equal(service.log.at(-1), 'DELETE /uploads/multipart/upl_1');
    assert.equal(store.entries.size, 0);
  });
});
