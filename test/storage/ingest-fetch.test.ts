// A URL ingest's fetch (fetchIngestSource, as Temporal runs it: MockActivityEnvironment) against a
// real S3 (SeaweedFS) and a local HTTP server: while retries remain, a failed attempt leaves its
// multipart upload for the next one, which resumes after the stored parts; a final failure, or any
// failure of the last attempt, aborts it, so no parts stay in the bucket (ListMultipartUploads); so
// does a cancelled fetch (the video deleted), which stops at once.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { CancelledFailure } from '@temporalio/common';
import { waitFor } from '@kino/dev';
import { createLogger, Storage } from '@kino/infra';
import { createIngestActivities, ingestFetchMaxAttempts, ingestPartBytes } from '@kino/orchestrator';
import { startTestServices, type TestServices } from '@kino/test/support/services';

let services: TestServices;
let storage: Storage;
let fetchIngestSource: (input: {
  videoId: string;
  url: string;
  storagePath: string;
}) => Promise<{ sizeBytes: number; resumes: number }>;
let server: Server;
let base: string;
/** Whether the source answers (else 503, a failure worth retrying). */
let sourceUp = true;
const ranges: Array<string | undefined> = [];

const source = randomBytes(ingestPartBytes + 4321);
source.write('\0\0\0\x18ftypisom', 0, 'latin1');

beforeAll(async () => {
  services = await startTestServices({ s3: true });
  storage = new Storage(services.storage);
  // The dev allowance (WEBHOOK_ALLOW_PRIVATE): the source is on loopback.
  ({ fetchIngestSource } = createIngestActivities({
    storage,
    logger: createLogger('test', 'silent'),
    webhookDestinations: { allowPrivate: true },
  }));
  server = createServer((request, response) => {
    if (request.url === '/gone.mp4') return void response.writeHead(404).end();
    if (request.url === '/stalls.mp4') {
      // The first part and a little more, then nothing: a slow source the fetch waits on.
      response.writeHead(200, { 'content-length': source.length });
      return void response.write(source.subarray(0, ingestPartBytes + 100));
    }
    if (!sourceUp) return void response.writeHead(503).end();
    ranges.push(request.headers.range);
    const start = Number(/^bytes=(\d+)-$/.exec(request.headers.range ?? '')?.[1] ?? 0);
    response.setHeader('etag', '"s1"');
    if (start > 0)
      response.writeHead(206, {
        'content-length': source.length - start,
        'content-range': `bytes ${start}-${source.length - 1}/${source.length}`,
      });
    else response.writeHead(200, { 'content-length': source.length });
    response.end(source.subarray(start));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  storage?.close();
  await services?.stop();
});

/** What an attempt killed after its first part leaves: the upload, one whole part, its heartbeat. */
async function interruptedAttempt(key: string): Promise<{ uploadId: string; validator: string }> {
  const uploadId = await storage.createMultipartUpload(key, 'application/octet-stream');
  await storage.uploadPart(key, uploadId, 1, source.subarray(0, ingestPartBytes));
  return { uploadId, validator: '"s1"' };
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => assert.fail('the fetch succeeded'),
    (error: unknown) => error as Error & { nonRetryable: boolean },
  );

test('a failed attempt with retries left keeps its upload; the next one resumes after the stored part', async () => {
  const key = 'ingests/org_1/env_1/vid_retry/source';
  const heartbeat = await interruptedAttempt(key);
  sourceUp = false;
  const busy = await failureOf(
    new MockActivityEnvironment({ attempt: 2, heartbeatDetails: heartbeat }).run(fetchIngestSource, {
      videoId: 'vid_retry',
      url: `${base}/a.mp4`,
      storagePath: key,
    }),
  );
  assert.equal(busy.nonRetryable, false);
  assert.equal(busy.message, 'source_http_error: the source URL answered 503');
  assert.deepEqual(
    await storage.listMultipartUploads(key),
    [{ key, uploadId: heartbeat.uploadId }],
    'kept for the next attempt',
  );

  sourceUp = true;
  ranges.length = 0;
  const result: { sizeBytes: number } = await new MockActivityEnvironment({
    attempt: 3,
    heartbeatDetails: heartbeat,
  }).run(fetchIngestSource, { videoId: 'vid_retry', url: `${base}/a.mp4`, storagePath: key });
  assert.deepEqual(ranges, [`bytes=${ingestPartBytes}-`], 'only the bytes after the stored part are asked for');
  assert.equal(result.sizeBytes, source.length);
  assert.ok((await storage.get(key))?.equals(source));
  assert.deepEqual(await storage.listMultipartUploads(key), []);
});

test('the last attempt failing aborts the upload: no parts stay in the bucket', async () => {
  const key = 'ingests/org_1/env_1/vid_last/source';
  const heartbeat = await interruptedAttempt(key);
  sourceUp = false;
  const busy = await failureOf(
    new MockActivityEnvironment({ attempt: ingestFetchMaxAttempts, heartbeatDetails: heartbeat }).run(
      fetchIngestSource,
      { videoId: 'vid_last', url: `${base}/a.mp4`, storagePath: key },
    ),
  );
  sourceUp = true;
  assert.equal(busy.message, 'source_http_error: the source URL answered 503');
  assert.deepEqual(await storage.listMultipartUploads(key), []);
  assert.equal(await storage.head(key), undefined);
});

test('a final failure (a 404) aborts the upload on any attempt', async () => {
  const key = 'ingests/org_1/env_1/vid_gone/source';
  const heartbeat = await interruptedAttempt(key);
  const gone = await failureOf(
    new MockActivityEnvironment({ attempt: 2, heartbeatDetails: heartbeat }).run(fetchIngestSource, {
      videoId: 'vid_gone',
      url: `${base}/gone.mp4`,
      storagePath: key,
    }),
  );
  assert.equal(gone.nonRetryable, true);
  assert.equal(gone.message, 'source_http_error: the source URL answered 404');
  assert.deepEqual(await storage.listMultipartUploads(key), []);
});

test('a cancelled fetch (its video deleted) stops and aborts its upload', async () => {
  const key = 'ingests/org_1/env_1/vid_cancel/source';
  const env = new MockActivityEnvironment({ attempt: 1 });
  const fetching = failureOf(
    env.run(fetchIngestSource, { videoId: 'vid_cancel', url: `${base}/stalls.mp4`, storagePath: key }),
  );
  // Under way: the first part is stored and the fetch waits on the source for the rest.
  const [upload] = await waitFor('the first part stored', async () => {
    const uploads = await storage.listMultipartUploads(key);
    return uploads.length === 1 && (await storage.listParts(key, uploads[0]!.uploadId)).length === 1 && uploads;
  });
  assert.ok(upload);
  env.cancel(); // as Temporal does when the workflow is cancelled (the video deleted)
  const cancelled = await fetching;
  assert.ok(cancelled instanceof CancelledFailure, `cancelled, not failed: ${String(cancelled)}`);
  assert.deepEqual(await storage.listMultipartUploads(key), []);
  assert.equal(await storage.head(key), undefined);
});
