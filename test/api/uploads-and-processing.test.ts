// Signed uploads and the process call on real PostgreSQL, SeaweedFS (which checks signatures) and a
// real Temporal server; the sweep of originals never processed, on a clock the test moves; and
// /health against those services.
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import assert from 'node:assert/strict';
import { ClickHouseHttp } from '@kino/analytics';
import { Storage, type StorageConfig } from '@kino/infra';
import { freePort } from '@kino/dev';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { Client, Connection } from '@temporalio/client';
import { findLiveVideoByStoragePath, findUpload, getVideo } from '@kino/database/repositories';
import { sweepAbandonedMultipartUploads, sweepUnprocessedOriginals } from '@kino/api';
import {
  assertErrorEnvelope,
  MP4_OPENING,
  seedTenancy,
  startApiHarness,
  type ApiHarness,
  type Json,
  type Tenancy,
  apiRequest,
} from './harness.ts';

let services: TestServices;
let api: ApiHarness;
let t: Tenancy;

beforeAll(async () => {
  services = await startTestServices({ postgres: true, temporal: true, s3: true });
  // Upload URLs are limited to 10 a minute per key (http.test.ts proves it); this file needs more.
  api = await startApiHarness(services, { rateLimits: { uploadUrlPerKey: { limit: 1000 } } });
  t = await seedTenancy(api.db);
});

afterAll(async () => {
  await api?.close();
  await services?.stop();
});

const post = (url: string, body: unknown, key = t.keys.full) => apiRequest(api.app, 'POST', url, { key, body });

async function requestUpload(body: Record<string, unknown> = { filename: 'clip.mp4', fileSize: 4 }, envId = t.envA.id) {
  const r = await post(`/${t.org.id}/environments/${envId}/videos/upload-url`, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.body as { signedURL: string; bucketPath: string; expiresAt: number };
}

async function put(url: string, contentType: string | undefined, body: Uint8Array = new Uint8Array([1, 2, 3, 4])) {
  const response = await fetch(url, {
    method: 'PUT',
    body: Buffer.from(body),
    headers: contentType ? { 'content-type': contentType } : {},
  });
  await response.arrayBuffer();
  return response.status;
}

/** An uploaded object ready for processing. */
async function uploadedPath(envId = t.envA.id, filename = 'clip.mp4', body: Uint8Array = MP4_OPENING): Promise<string> {
  const ticket = await requestUpload({ filename, fileSize: body.length }, envId);
  assert.equal(await put(ticket.signedURL, 'video/mp4', body), 200);
  return ticket.bucketPath;
}

/** The first packets of an MPEG-TS file: 188 bytes each, or 192 (M2TS: a 4-byte timestamp, then the packet). */
function tsOpening(packetSize: 188 | 192): Uint8Array {
  const bytes = new Uint8Array(packetSize * 8);
  for (let k = 0; k < 8; k++) bytes[k * packetSize + packetSize - 188] = 0x47;
  return bytes;
}

describe('upload URLs', () => {
  it('return a ticket at the design layout, valid one hour, recorded for this org and environment', async () => {
    const before = Math.floor(Date.now() / 1000);
    const ticket = await requestUpload({ filename: 'My clip (final).mp4', fileSize: 1234 });
    assert.match(
      ticket.bucketPath,
      new RegExp(`^uploads/${t.org.id}/${t.envA.id}/upl_[0-9A-Za-z]{16}/My_clip_final_\\.mp4$`),
    );
    assert.ok(ticket.expiresAt >= before + 3600 && ticket.expiresAt <= Math.floor(Date.now() / 1000) + 3600);
    const url = new URL(ticket.signedURL);
    assert.equal(url.origin, services.storage.S3_ENDPOINT);
    assert.equal(url.pathname, `/${services.storage.S3_BUCKET}/${ticket.bucketPath}`);
    assert.equal(url.searchParams.get('X-Amz-Expires'), '3600');
    assert.deepEqual(url.searchParams.get('X-Amz-SignedHeaders')?.split(';'), [
      'content-length',
      'content-type',
      'host',
    ]);
    const upload = await findUpload(api.db, { orgId: t.org.id, envId: t.envA.id, bucketPath: ticket.bucketPath });
    assert.equal(upload?.filename, 'My clip (final).mp4');
    assert.equal(upload?.content_type, 'video/mp4');
    assert.equal(upload?.file_size, 1234);
  });

  it('accept a PUT with the signed Content-Type: the object lands in storage', async () => {
    // video/mp2t and application/mxf: Kino's own, beyond the interface's five (camera and broadcast files).
    for (const [filename, contentType] of [
      ['clip.webm', 'video/webm'],
      ['00001.MTS', 'video/mp2t'],
      ['A001.mxf', 'application/mxf'],
    ]) {
      const ticket = await requestUpload({ filename, fileSize: 4, contentType });
      assert.equal(await put(ticket.signedURL, contentType), 200, contentType);
      const object = await api.storage.head(ticket.bucketPath);
      assert.equal(object?.size, 4);
      assert.equal(object?.contentType, contentType);
    }
  });

  it('are refused by storage (403) when tampered with or sent with another Content-Type', async () => {
    const ticket = await requestUpload();
    const url = new URL(ticket.signedURL);
    const signature = url.searchParams.get('X-Amz-Signature')!;
    const tampered = new URL(url);
    tampered.searchParams.set('X-Amz-Signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`);
    assert.equal(await put(tampered.toString(), 'video/mp4'), 403);
    const otherKey = new URL(url);
    otherKey.pathname = otherKey.pathname.replace(/clip\.mp4$/, 'other.mp4');
    assert.equal(await put(otherKey.toString(), 'video/mp4'), 403);
    const longer = new URL(url);
    longer.searchParams.set('X-Amz-Expires', '604800');
    assert.equal(await put(longer.toString(), 'video/mp4'), 403);
    assert.equal(await put(ticket.signedURL, 'video/quicktime'), 403);
    assert.equal(await put(ticket.signedURL, undefined), 403);
    assert.equal(await api.storage.head(ticket.bucketPath), undefined);
    // The untouched URL still works.
    assert.equal(await put(ticket.signedURL, 'video/mp4'), 200);
  });

  it('are refused by storage (403) for a body larger or smaller than the fileSize they were issued for', async () => {
    const ticket = await requestUpload({ filename: 'clip.mp4', fileSize: 1000 });
    for (const size of [20 * 1024 ** 2, 1001, 999, 0]) {
      assert.equal(await put(ticket.signedURL, 'video/mp4', new Uint8Array(size)), 403, `${size} bytes`);
      assert.equal(await api.storage.head(ticket.bucketPath), undefined, `${size} bytes: nothing stored`);
    }
    assert.equal(await put(ticket.signedURL, 'video/mp4', new Uint8Array(1000)), 200);
    assert.equal((await api.storage.head(ticket.bucketPath))?.size, 1000);
  });

  it('are refused by storage (403) once expired', async () => {
    // Issue the ticket with the clock two hours back: storage sees a URL that expired an hour ago.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 2 * 3600_000 });
    let ticket: Awaited<ReturnType<typeof requestUpload>>;
    try {
      ticket = await requestUpload();
    } finally {
      vi.useRealTimers();
    }
    assert.ok(ticket.expiresAt < Date.now() / 1000);
    assert.equal(await put(ticket.signedURL, 'video/mp4'), 403);
  });
});

describe('process', () => {
  const processUrl = (envId = t.envA.id) => `/${t.org.id}/environments/${envId}/videos/process`;
  const valid = (storagePath: string) => ({ storagePath, videoQuality: 'standard', allowPublicAccess: true });

  it('refuses a storage path that is not an upload of this org and environment: invalid_storage_path', async () => {
    const otherEnvPath = await uploadedPath(t.envB.id);
    const notUploaded = (await requestUpload()).bucketPath;
    for (const storagePath of [
      'uploads/whatever.mp4',
      `uploads/${t.org.id}/${t.envA.id}/upl_0000000000000000/clip.mp4`,
      otherEnvPath,
      notUploaded,
    ]) {
      const r = await post(processUrl(), valid(storagePath));
      assert.equal(r.status, 400, storagePath);
      assertErrorEnvelope(r.body, 400, 'invalid_storage_path', assert);
      assert.deepEqual(r.body.errors[0].location, 'body.storagePath');
      assert.equal(r.body.errors[0].value, storagePath);
    }
    const missing = await post(processUrl(), { videoQuality: 'standard', allowPublicAccess: true });
    assert.equal(missing.status, 400);
    assertErrorEnvelope(missing.body, 400, 'invalid_storage_path', assert);
  });

  it('answers 422 unsupported_format when the upload opens no accepted container, and creates nothing', async () => {
    const refused: [string, Uint8Array][] = [
      ['text', new Uint8Array(Buffer.from('This is a text file that someone uploaded by mistake.\n'.repeat(20)))],
      ['wav', new Uint8Array(Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00', 'latin1'))],
      ['png', new Uint8Array(Buffer.from('\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR', 'latin1'))],
    ];
    const paths: [string, string][] = [];
    for (const [name, body] of refused) paths.push([name, await uploadedPath(t.envA.id, `${name}.mp4`, body)]);
    // A ticket is for 1 byte or more and storage holds a PUT to it, so an empty upload is an object
    // written some other way (through a ticket issued before sizes were signed, say).
    const empty = (await requestUpload({ filename: 'empty.mp4', fileSize: 1 })).bucketPath;
    await api.storage.put(empty, new Uint8Array(0), 'video/mp4');
    paths.push(['empty', empty]);
    for (const [name, path] of paths) {
      const r = await post(processUrl(), valid(path));
      assert.equal(r.status, 422, name);
      assertErrorEnvelope(r.body, 422, 'unsupported_format', assert);
      assert.equal(await findLiveVideoByStoragePath(api.db, path), undefined, name);
    }
    const accepted: [string, Uint8Array][] = [
      ['mp4', MP4_OPENING],
      ['mov', new Uint8Array(Buffer.from('\x00\x00\x00\x08wide\x00\x00\x10\x00mdat', 'latin1'))],
      ['avi', new Uint8Array(Buffer.from('RIFF\x24\x00\x00\x00AVI LIST', 'latin1'))],
      ['webm', new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01])],
      ['ts', tsOpening(188)],
      ['m2ts', tsOpening(192)],
      ['mxf', new Uint8Array(Buffer.from('060e2b34020501010d01020101020400', 'hex'))],
    ];
    for (const [name, body] of accepted) {
      const r = await post(processUrl(), valid(await uploadedPath(t.envA.id, `opening.${name}`, body)));
      assert.equal(r.status, 200, `${name}: ${JSON.stringify(r.body)}`);
    }
  });

  it('refuses a stored file over the size limit with invalid_file_size, removes it, and starts nothing', async () => {
    // The limit shrunk to one byte below this upload: crossing the real 5 GB one would store 5 GB.
    const strict = await api.buildAnother({ maxSourceBytes: MP4_OPENING.length - 1 });
    const processOn = async (app: typeof strict, storagePath: string) => {
      const r = await app.inject({
        method: 'POST',
        url: `/v1/api${processUrl()}`,
        headers: { 'x-api-key': t.keys.full },
        payload: valid(storagePath),
      });
      return { status: r.statusCode, body: r.json<Json>() };
    };
    const path = await uploadedPath();
    const r = await processOn(strict, path);
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assertErrorEnvelope(r.body, 400, 'invalid_file_size', assert);
    assert.match(r.body.detail, new RegExp(`${MP4_OPENING.length} bytes.*removed`));
    assert.deepEqual(r.body.errors[0].location, 'body.storagePath');
    assert.equal(await api.storage.head(path), undefined, 'the object is removed');
    assert.equal(await findLiveVideoByStoragePath(api.db, path), undefined);
    // Asked again, the path holds nothing.
    assertErrorEnvelope((await processOn(strict, path)).body, 400, 'invalid_storage_path', assert);

    // At the limit, a file goes through.
    const atLimit = await api.buildAnother({ maxSourceBytes: MP4_OPENING.length });
    assert.equal((await processOn(atLimit, await uploadedPath())).status, 200);
  });

  it('refuses an unknown quality preset: invalid_quality_preset', async () => {
    const path = await uploadedPath();
    for (const videoQuality of ['mega', 'HIGH', 1080, undefined]) {
      const r = await post(processUrl(), { storagePath: path, allowPublicAccess: true, videoQuality });
      assert.equal(r.status, 400, String(videoQuality));
      assertErrorEnvelope(r.body, 400, 'invalid_quality_preset', assert);
      assert.equal(r.body.errors[0].location, 'body.videoQuality');
    }
  });

  it('refuses every out-of-range encoding parameter: invalid_parameters, naming the field', async () => {
    const path = await uploadedPath();
    const bad: [string, unknown][] = [
      ['maxEdgeLength', 500],
      ['maxEdgeLength', 4320],
      ['maxEdgeLength', '720'],
      ['maxFrameRate', 0],
      ['maxFrameRate', -2],
      ['maxFrameRate', 241],
      ['maxFrameRate', 29.97],
      ['pixelFormat', 'rgb24'],
      ['pixelFormat', 'yuv420p10le'],
      ['rateControlMode', 'crf'],
      ['twoPassVBREncoding', 'yes'],
      ['compressionRatio', 'placebo'],
      ['audioCodec', 'opus'],
      ['audioCodec', 'AAC'],
      ['encodingMode', 'perTitle'],
      ['encodingMode', 'ContentAware'],
      ['additionalCodecs', 'av1'],
      // The H.264 ladder is always made: it is no additional codec.
      ['additionalCodecs[0]', ['h264']],
      ['additionalCodecs[1]', ['av1', 'vp9']],
      ['additionalCodecs', ['av1', 'av1']],
    ];
    for (const [field, value] of bad) {
      const name = field.replace(/\[\d+\]$/, '');
      const r = await post(processUrl(), { ...valid(path), [name]: value });
      assert.equal(r.status, 400, `${field}=${String(value)}`);
      assertErrorEnvelope(r.body, 400, 'invalid_parameters', assert);
      // An item's error names the item, and the value is that item.
      const item = /\[(\d+)\]$/.exec(field);
      const shown = item ? (value as unknown[])[Number(item[1])] : value;
      assert.deepEqual(r.body.errors[0], { ...r.body.errors[0], location: `body.${field}`, value: shown });
    }
    const noAccess = await post(processUrl(), { storagePath: path, videoQuality: 'high' });
    assert.equal(noAccess.status, 400);
    assert.equal(noAccess.body.errors[0].location, 'body.allowPublicAccess');
    // Nothing was created by any of these.
    assert.equal(await findLiveVideoByStoragePath(api.db, path), undefined);
  });

  it('creates a transcoding video with the parameters after defaults and starts workflow video:{id}', async () => {
    const path = await uploadedPath(t.envA.id, 'holiday.mov');
    const r = await post(processUrl(), {
      storagePath: path,
      videoQuality: 'high',
      allowPublicAccess: false,
      audioCodec: 'aac-he',
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const videoId: string = r.body.body.videoID;
    assert.match(videoId, /^vid_[0-9A-Za-z]{16}$/);

    const video = await getVideo(api.db, videoId);
    assert.equal(video?.status, 'transcoding');
    assert.equal(video?.name, 'holiday.mov');
    assert.equal(video?.storage_path, path);
    assert.equal(video?.allow_public_access, false);
    assert.deepEqual(video?.parameters, {
      maxEdgeLength: -1,
      maxFrameRate: -1,
      pixelFormat: 'yuv420p',
      rateControlMode: 'variableBitrate',
      twoPassVBREncoding: false,
      compressionRatio: 'veryfast',
      audioCodec: 'aac-he',
      encodingMode: 'fixed',
      additionalCodecs: [],
      nodeLabels: [],
      hardwareEncoding: 'never',
    });

    const handle = api.temporal.workflow.getHandle(`video:${videoId}`);
    const description = await handle.describe();
    assert.equal(description.type, 'processVideo');
    assert.equal(description.taskQueue, 'kino-videos');
    assert.equal(description.status.name, 'RUNNING');
    const history = await handle.fetchHistory();
    const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    assert.deepEqual(JSON.parse(Buffer.from(payload!.data!).toString('utf8')), { videoId });

    const details = await api.app.inject({
      url: `/v1/api/${t.org.id}/videos/${videoId}/details`,
      headers: { 'x-api-key': t.keys.envA },
    });
    const body = details.json<Json>().body;
    assert.deepEqual(body.status, { ready: false, transcoding: true, failed: false });
    assert.equal(body.compressionRatio, 'veryfast');
    assert.equal(body.audioCodec, 'aac-he');
    assert.equal(body.encodingMode, 'fixed');
    assert.deepEqual(body.additionalCodecs, []);
    assert.equal(body.videoQuality, 'high');
    assert.deepEqual(body.encodings, []);
  });

  it('keeps every given parameter and the video name', async () => {
    const path = await uploadedPath();
    const parameters = {
      maxEdgeLength: 720,
      maxFrameRate: 30,
      pixelFormat: 'yuv420p10b',
      rateControlMode: 'constantBitrate',
      twoPassVBREncoding: true,
      compressionRatio: 'slower',
      audioCodec: 'aac-he-v2',
      encodingMode: 'contentAware',
      additionalCodecs: ['av1', 'hevc'],
    };
    const r = await post(processUrl(), {
      ...valid(path),
      videoQuality: 'ultra',
      videoName: 'Launch keynote',
      ...parameters,
    });
    assert.equal(r.status, 200);
    // Stored with the farm's choices the call left to their defaults (issue 54).
    assert.deepEqual((await getVideo(api.db, r.body.body.videoID))?.parameters, {
      ...parameters,
      nodeLabels: [],
      hardwareEncoding: 'never',
    });
    const details = await api.app.inject({
      url: `/v1/api/${t.org.id}/videos/${r.body.body.videoID}/details`,
      headers: { 'x-api-key': t.keys.full },
    });
    const body = details.json<Json>().body;
    assert.equal(body.name, 'Launch keynote');
    assert.equal(body.videoQuality, 'ultra');
    for (const [field, value] of Object.entries(parameters)) assert.deepEqual(body[field], value, field);
  });

  it('ingest from a URL keeps the encoding mode and added codecs, and refuses bad ones as process does', async () => {
    const ingestUrl = `/${t.org.id}/environments/${t.envA.id}/videos/ingest`;
    const source = {
      url: 'https://files.example.com/talks/keynote.mp4',
      videoQuality: 'standard',
      allowPublicAccess: true,
    };
    const r = await post(ingestUrl, { ...source, encodingMode: 'contentAware', additionalCodecs: ['hevc'] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const video = await getVideo(api.db, r.body.body.videoID);
    assert.equal(video?.parameters.encodingMode, 'contentAware');
    assert.deepEqual(video?.parameters.additionalCodecs, ['hevc']);
    for (const [field, value] of [
      ['encodingMode', 'perTitle'],
      ['additionalCodecs', ['h264']],
      ['additionalCodecs', ['hevc', 'hevc']],
    ] as const) {
      const refused = await post(ingestUrl, { ...source, [field]: value });
      assert.equal(refused.status, 400, `${field}=${String(value)}`);
      assertErrorEnvelope(refused.body, 400, 'invalid_parameters', assert);
      assert.match(refused.body.errors[0].location, new RegExp(`^body\\.${field}`));
    }
  });

  it('answers 409 processing_in_progress for a path already being processed', async () => {
    const path = await uploadedPath();
    assert.equal((await post(processUrl(), valid(path))).status, 200);
    const again = await post(processUrl(), valid(path));
    assert.equal(again.status, 409);
    assertErrorEnvelope(again.body, 409, 'processing_in_progress', assert);
    // Concurrent calls for one new path: exactly one wins.
    const racePath = await uploadedPath();
    const results = await Promise.all([1, 2, 3].map(() => post(processUrl(), valid(racePath))));
    assert.deepEqual(results.map((x) => x.status).sort(), [200, 409, 409]);
  });

  it('answers 503 and keeps nothing when Temporal is unreachable', async () => {
    // No retry interceptor: the client gives up at once instead of retrying for ~10 s.
    const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, interceptors: [] });
    const app = await api.buildAnother({ temporal: new Client({ connection }) });
    const path = await uploadedPath();
    const started = Date.now();
    const r = await app.inject({
      method: 'POST',
      url: `/v1/api${processUrl()}`,
      headers: { 'x-api-key': t.keys.full },
      payload: valid(path),
    });
    assert.equal(r.statusCode, 503);
    assertErrorEnvelope(r.json(), 503, 'service_unavailable', assert);
    assert.equal(await findLiveVideoByStoragePath(api.db, path), undefined);
    assert.ok(Date.now() - started < 15_000);
    await connection.close();
    // The same path goes through once Temporal is there.
    assert.equal((await post(processUrl(), valid(path))).status, 200);
  });
});

describe('originals never processed', () => {
  const hour = 3600 * 1000;
  const processBody = (storagePath: string) => ({ storagePath, videoQuality: 'standard', allowPublicAccess: true });
  /** Every original the sweep removes at `now`, over as many runs as its batches take. */
  async function sweepAll(now: Date): Promise<string[]> {
    const removed: string[] = [];
    for (
      let batch = await sweepUnprocessedOriginals(api, now);
      batch.length > 0;
      batch = await sweepUnprocessedOriginals(api, now)
    )
      removed.push(...batch);
    return removed;
  }

  it('are removed a day after their ticket expired; one a video was made from stays', async () => {
    const processed = await uploadedPath();
    assert.equal(
      (await post(`/${t.org.id}/environments/${t.envA.id}/videos/process`, processBody(processed))).status,
      200,
    );
    const ticket = await requestUpload({ filename: 'clip.mp4', fileSize: MP4_OPENING.length });
    assert.equal(await put(ticket.signedURL, 'video/mp4', MP4_OPENING), 200);
    const expired = ticket.expiresAt * 1000;

    // 23 hours after the ticket expired, it is not due.
    assert.ok(!(await sweepAll(new Date(expired + 23 * hour))).includes(ticket.bucketPath));
    assert.ok(await api.storage.head(ticket.bucketPath), 'kept within the day');

    const dayAfter = new Date(expired + 24 * hour + 1000);
    const removed = await sweepAll(dayAfter);
    assert.ok(removed.includes(ticket.bucketPath), `removed ${removed.join(', ')}`);
    assert.ok(!removed.includes(processed));
    assert.equal(await api.storage.head(ticket.bucketPath), undefined, 'the original never processed is gone');
    assert.ok(await api.storage.head(processed), 'the processed one stays');
    const late = await post(`/${t.org.id}/environments/${t.envA.id}/videos/process`, processBody(ticket.bucketPath));
    assertErrorEnvelope(late.body, 400, 'invalid_storage_path', assert);
    // Settled uploads are not looked at again.
    assert.deepEqual(await sweepAll(dayAfter), []);
  });

  it('leave an open multipart upload to the multipart sweep, which aborts it first', async () => {
    const started = await post(`/${t.org.id}/environments/${t.envA.id}/uploads/multipart`, {
      filename: 'big.mp4',
      fileSize: 6 * 1024 * 1024,
    });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const open = started.body.body as { uploadId: string; bucketPath: string; expiresAt: number };
    const dayAfter = new Date(open.expiresAt * 1000 + 24 * hour + 1000);
    assert.ok(!(await sweepAll(dayAfter)).includes(open.bucketPath));
    assert.ok((await sweepAbandonedMultipartUploads(api, dayAfter)).includes(open.uploadId));
    assert.ok((await sweepAll(dayAfter)).includes(open.bucketPath));
  });
});

describe('health', () => {
  const get = async (app = api.app) => {
    const r = await app.inject({ url: '/v1/api/health' });
    return { status: r.statusCode, body: r.json<Json>() };
  };

  it('reports ok with every dependency up (analytics skipped when not configured), without a key', async () => {
    const r = await get();
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.body.status, 'ok');
    assert.match(r.body.body.version, /^\d+\.\d+\.\d+/);
    assert.equal(r.body.body.checks.database.status, 'ok');
    assert.equal(r.body.body.checks.temporal.status, 'ok');
    assert.equal(r.body.body.checks.storage.status, 'ok');
    assert.equal(r.body.body.checks.analytics.status, 'skipped');
  });

  it('answers 503 naming the dependency that is down', async () => {
    const deadStorage: StorageConfig = { ...services.storage, S3_ENDPOINT: `http://127.0.0.1:${await freePort()}` };
    const storage = new Storage(deadStorage);
    const clickhouse = new ClickHouseHttp(`http://127.0.0.1:${await freePort()}`);
    const app = await api.buildAnother({ storage, clickhouse });
    const r = await get(app);
    storage.close();
    assert.equal(r.status, 503);
    assertErrorEnvelope(r.body, 503, 'service_unavailable', assert);
    assert.match(r.body.detail, /storage/);
    assert.match(r.body.detail, /analytics/);
    assert.equal(r.body.body.status, 'degraded');
    assert.equal(r.body.body.checks.storage.status, 'error');
    assert.equal(r.body.body.checks.analytics.status, 'error');
    assert.equal(r.body.body.checks.database.status, 'ok');
    assert.equal(r.body.body.checks.temporal.status, 'ok');

    const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, interceptors: [] });
    const noTemporal = await api.buildAnother({ temporal: new Client({ connection }) });
    const down = await get(noTemporal);
    await connection.close();
    assert.equal(down.status, 503);
    assert.match(down.body.detail, /temporal/);
    assert.equal(down.body.body.checks.temporal.status, 'error');
  });
});
