// fetchIngestSource as Temporal runs it (MockActivityEnvironment), over an in-memory multipart
// bucket with Storage's shape and a local HTTP server: the address guard, resuming from the parts an
// earlier attempt stored (its heartbeat), and final against retryable failures.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { createLogger, NoSuchUploadError, type Storage, type StoredPart } from '@kino/infra';
import { createIngestActivities, ingestPartBytes } from './ingest.ts';
import { failureTypes } from '../activity-types.ts';

const source = randomBytes(2 * ingestPartBytes + 4321);
source.write('\0\0\0\x18ftypisom', 0, 'latin1');

let server: Server;
let base: string;
const ranges: Array<string | undefined> = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/gone.mp4') return void response.writeHead(404).end();
    if (request.url === '/busy.mp4') return void response.writeHead(503).end();
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
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** An in-memory bucket with multipart uploads: the part of Storage the activity uses. */
function memoryBucket() {
  const objects = new Map<string, Buffer>();
  const uploads = new Map<string, Map<number, Buffer>>();
  let next = 0;
  const storage = {
    head: async (key: string) => (objects.has(key) ? { size: objects.get(key)!.length } : undefined),
    createMultipartUpload: async () => {
      const id = `up${(next += 1)}`;
      uploads.set(id, new Map());
      return id;
    },
    uploadPart: async (_key: string, uploadId: string, partNumber: number, body: Uint8Array): Promise<StoredPart> => {
      uploads.get(uploadId)!.set(partNumber, Buffer.from(body));
      return { partNumber, size: body.byteLength, etag: `"${partNumber}"` };
    },
    listParts: async (_key: string, uploadId: string): Promise<StoredPart[]> => {
      const parts = uploads.get(uploadId);
      if (!parts) throw new NoSuchUploadError(uploadId);
      return [...parts.entries()]
        .sort(([a], [b]) => a - b)
        .map(([partNumber, bytes]) => ({ partNumber, size: bytes.length, etag: `"${partNumber}"` }));
    },
    completeMultipartUpload: async (key: string, uploadId: string, parts: readonly StoredPart[]) => {
      const stored = uploads.get(uploadId)!;
      objects.set(key, Buffer.concat(parts.map((part) => stored.get(part.partNumber)!)));
      uploads.delete(uploadId);
    },
    abortMultipartUpload: async (_key: string, uploadId: string) => void uploads.delete(uploadId),
  };
  return { storage: storage as unknown as Storage, objects, uploads };
}

const logger = createLogger('test', 'silent');
const key = 'ingests/org_1/env_1/vid_1/source';

test('the guard refuses a loopback source for good (source_address_refused) unless WEBHOOK_ALLOW_PRIVATE', async () => {
  const bucket = memoryBucket();
  const guarded = createIngestActivities({
    storage: bucket.storage,
    logger,
    webhookDestinations: { allowPrivate: false },
  });
  const error = await new MockActivityEnvironment()
    .run(guarded.fetchIngestSource, { videoId: 'vid_1', url: `${base}/a.mp4`, storagePath: key })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApplicationFailure);
  expect(error).toMatchObject({ type: failureTypes.invalidSource, nonRetryable: true });
  expect((error as Error).message).toMatch(
    /^source_address_refused: 127\.0\.0\.1 resolves to 127\.0\.0\.1, not a public address/,
  );
  expect(bucket.objects.size).toBe(0);

  const dev = createIngestActivities({ storage: bucket.storage, logger, webhookDestinations: { allowPrivate: true } });
  const result = await new MockActivityEnvironment().run(dev.fetchIngestSource, {
    videoId: 'vid_1',
    url: `${base}/a.mp4`,
    storagePath: key,
  });
  expect(result).toMatchObject({ sizeBytes: source.length });
  expect(bucket.objects.get(key)?.equals(source)).toBe(true);
});

test("a later attempt resumes after the whole parts its heartbeat's upload holds", async () => {
  const bucket = memoryBucket();
  const { fetchIngestSource } = createIngestActivities({
    storage: bucket.storage,
    logger,
    webhookDestinations: { allowPrivate: true },
  });
  // What a killed first attempt left: one whole part stored, the second one never finished.
  const uploadId = await bucket.storage.createMultipartUpload(key, 'application/octet-stream');
  await bucket.storage.uploadPart(key, uploadId, 1, source.subarray(0, ingestPartBytes));
  ranges.length = 0;
  const env = new MockActivityEnvironment({ heartbeatDetails: { uploadId, validator: '"s1"' } });
  const result = await env.run(fetchIngestSource, { videoId: 'vid_1', url: `${base}/a.mp4`, storagePath: key });
  expect(ranges).toEqual([`bytes=${ingestPartBytes}-`]);
  expect(result).toMatchObject({ sizeBytes: source.length });
  expect(bucket.objects.get(key)?.equals(source)).toBe(true);
});

test('a 404 is final (InvalidSource, the upload aborted); a 503 is retried', async () => {
  const bucket = memoryBucket();
  const { fetchIngestSource } = createIngestActivities({
    storage: bucket.storage,
    logger,
    webhookDestinations: { allowPrivate: true },
  });
  const gone = await new MockActivityEnvironment()
    .run(fetchIngestSource, { videoId: 'vid_1', url: `${base}/gone.mp4`, storagePath: key })
    .catch((e: unknown) => e);
  expect(gone).toMatchObject({
    type: failureTypes.invalidSource,
    nonRetryable: true,
    message: 'source_http_error: the source URL answered 404',
  });
  expect(bucket.uploads.size).toBe(0);
  const busy = await new MockActivityEnvironment()
    .run(fetchIngestSource, { videoId: 'vid_1', url: `${base}/busy.mp4`, storagePath: key })
    .catch((e: unknown) => e);
  expect(busy).toMatchObject({ nonRetryable: false, message: 'source_http_error: the source URL answered 503' });
});
