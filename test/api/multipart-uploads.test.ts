// Multipart uploads on real PostgreSQL and SeaweedFS (which checks the part URLs' signatures): start,
// part URLs, parts PUT straight to storage, what arrived, complete into one object, abort, the
// named errors, and the sweep that aborts uploads left open for a day, on a clock the test moves.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { NoSuchUploadError, Storage } from '@kino/infra';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { findUpload } from '@kino/database/repositories';
import { sweepAbandonedMultipartUploads } from '@kino/api';
import {
  assertErrorEnvelope,
  seedTenancy,
  startApiHarness,
  type ApiHarness,
  type Json,
  type Tenancy,
} from './harness.ts';

const MiB = 1024 ** 2;
const hour = 3600 * 1000;

let services: TestServices;
let api: ApiHarness;
let t: Tenancy;
let clock = Date.now();

beforeAll(async () => {
  services = await startTestServices({ postgres: true, s3: true });
  api = await startApiHarness(services, {
    rateLimits: { uploadUrlPerKey: { limit: 1000 } },
    now: () => new Date(clock),
  });
  t = await seedTenancy(api.db);
});

afterAll(async () => {
  await api?.close();
  await services?.stop();
});

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, key = t.keys.full) {
  const response = await api.app.inject({
    method,
    url: `/v1/api/${t.org.id}/environments/${t.envA.id}/uploads/multipart${url}`,
    headers: { 'x-api-key': key },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return { status: response.statusCode, body: response.json() as Json };
}

async function start(fileSize: number, partSize?: number) {
  const r = await call('POST', '', {
    filename: 'big clip.mov',
    fileSize,
    contentType: 'video/quicktime',
    ...(partSize ? { partSize } : {}),
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.body as {
    uploadId: string;
    bucketPath: string;
    partSize: number;
    partCount: number;
    expiresAt: number;
  };
}

async function putParts(uploadId: string, parts: Record<number, Uint8Array>) {
  const r = await call('POST', `/${uploadId}/parts`, { partNumbers: Object.keys(parts).map(Number) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  for (const { partNumber, signedURL } of r.body.body.parts as Array<{ partNumber: number; signedURL: string }>) {
    const response = await fetch(signedURL, { method: 'PUT', body: Buffer.from(parts[partNumber]!) });
    assert.equal(response.status, 200, await response.text());
  }
}

async function storageUploadIdOf(uploadId: string): Promise<string> {
  const row = await api.db
    .selectFrom('multipart_uploads')
    .select('storage_upload_id')
    .where('upload_id', '=', uploadId)
    .executeTakeFirstOrThrow();
  return row.storage_upload_id;
}

function bytes(size: number, fill: number): Uint8Array {
  return new Uint8Array(size).fill(fill);
}

describe('multipart uploads', () => {
  it('take parts at presigned URLs, list what arrived, and complete into the object at bucketPath', async () => {
    const fileSize = 2 * 5 * MiB + 1234;
    const upload = await start(fileSize, 5 * MiB);
    assert.match(upload.bucketPath, new RegExp(`^uploads/${t.org.id}/${t.envA.id}/${upload.uploadId}/big_clip\\.mov$`));
    assert.equal(upload.partSize, 5 * MiB);
    assert.equal(upload.partCount, 3);
    assert.equal(upload.expiresAt, Math.floor(clock / 1000) + 24 * 3600);
    // Recorded as an upload ticket: `process` takes its path like any other.
    assert.ok(await findUpload(api.db, { orgId: t.org.id, envId: t.envA.id, bucketPath: upload.bucketPath }));

    await putParts(upload.uploadId, { 1: bytes(5 * MiB, 1), 3: bytes(1234, 3) });
    const listed = await call('GET', `/${upload.uploadId}/parts`);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.body.parts.map((part: Json) => [part.partNumber, part.size]),
      [
        [1, 5 * MiB],
        [3, 1234],
      ],
    );
    assert.ok(listed.body.body.parts.every((part: Json) => typeof part.etag === 'string' && part.etag.length > 0));

    const early = await call('POST', `/${upload.uploadId}/complete`);
    assert.equal(early.status, 409);
    assertErrorEnvelope(early.body, 409, 'upload_incomplete', assert);
    assert.match(early.body.detail, /: 2\./);

    await putParts(upload.uploadId, { 2: bytes(5 * MiB, 2) });
    const completed = await call('POST', `/${upload.uploadId}/complete`);
    assert.equal(completed.status, 200, JSON.stringify(completed.body));
    assert.deepEqual(completed.body.body, { bucketPath: upload.bucketPath, fileSize });
    const object = await api.storage.get(upload.bucketPath);
    assert.equal(object?.length, fileSize);
    assert.deepEqual([object![0], object![5 * MiB], object![fileSize - 1]], [1, 2, 3]);

    const again = await call('POST', `/${upload.uploadId}/parts`, { partNumbers: [1] });
    assertErrorEnvelope(again.body, 409, 'upload_already_completed', assert);
  });

  it('are presigned for S3_PUBLIC_ENDPOINT when it is set: clients get that address, and storage takes what is sent there', async () => {
    // Another name of the same SeaweedFS, which checks that each URL is signed for the host it is sent to.
    const internal = new URL(services.storage.S3_ENDPOINT);
    assert.equal(internal.hostname, '127.0.0.1');
    const publicEndpoint = `http://localhost:${internal.port}`;
    const config = { ...api.config, S3_PUBLIC_ENDPOINT: publicEndpoint };
    const storage = new Storage(config);
    const app = await api.buildAnother({ config, storage });
    try {
      const post = async (url: string, body?: object) => {
        const response = await app.inject({
          method: 'POST',
          url: `/v1/api/${t.org.id}/environments/${t.envA.id}${url}`,
          headers: { 'x-api-key': t.keys.full },
          ...(body ? { payload: body } : {}),
        });
        assert.equal(response.statusCode, 200, response.body);
        return (response.json() as Json).body;
      };

      const single = await post('/videos/upload-url', {
        filename: 'clip.mp4',
        fileSize: 1000,
        contentType: 'video/mp4',
      });
      assert.equal(new URL(single.signedURL).origin, publicEndpoint);
      const put = await fetch(single.signedURL, {
        method: 'PUT',
        headers: { 'content-type': 'video/mp4' },
        body: Buffer.from(bytes(1000, 7)),
      });
      assert.equal(put.status, 200, await put.text());
      assert.equal((await api.storage.head(single.bucketPath))?.size, 1000);

      const multipart = await post('/uploads/multipart', {
        filename: 'big.mov',
        fileSize: 5 * MiB + 10,
        contentType: 'video/quicktime',
        partSize: 5 * MiB,
      });
      const { parts } = await post(`/uploads/multipart/${multipart.uploadId}/parts`, { partNumbers: [1, 2] });
      for (const { partNumber, signedURL } of parts as Array<{ partNumber: number; signedURL: string }>) {
        assert.equal(new URL(signedURL).origin, publicEndpoint);
        const response = await fetch(signedURL, {
          method: 'PUT',
          body: Buffer.from(bytes(partNumber === 1 ? 5 * MiB : 10, partNumber)),
        });
        assert.equal(response.status, 200, await response.text());
      }
      await post(`/uploads/multipart/${multipart.uploadId}/complete`);
      assert.equal((await api.storage.head(multipart.bucketPath))?.size, 5 * MiB + 10);

      // What the public address proves: a URL signed for it is refused at the other name (the signature binds the host).
      const elsewhere = new URL(single.signedURL);
      elsewhere.host = internal.host;
      const refused = await fetch(elsewhere, {
        method: 'PUT',
        headers: { 'content-type': 'video/mp4' },
        body: Buffer.from(bytes(1000, 8)),
      });
      assert.equal(refused.status, 403);
    } finally {
      storage.close();
    }
  });

  it('pick a part size by default, take one asked for within S3 limits, and keep the upload limits', async () => {
    const small = await start(100 * MiB);
    assert.deepEqual([small.partSize, small.partCount], [16 * MiB, 7]);
    // The largest file in the smallest parts stays within 10,000 parts (5 GiB / 5 MiB = 1024).
    const largest = await start(5 * 1024 ** 3, 5 * MiB);
    assert.deepEqual([largest.partSize, largest.partCount], [5 * MiB, 1024]);
    const belowMinimum = await call('POST', '', { filename: 'a.mp4', fileSize: 10 * MiB, partSize: MiB });
    assertErrorEnvelope(belowMinimum.body, 400, 'invalid_part_size', assert);
    // The same limits as an upload URL.
    const tooLarge = await call('POST', '', { filename: 'a.mp4', fileSize: 5 * 1024 ** 3 + 1 });
    assertErrorEnvelope(tooLarge.body, 400, 'invalid_file_size', assert);
    const notVideo = await call('POST', '', { filename: 'a.txt', fileSize: 10, contentType: 'text/plain' });
    assertErrorEnvelope(notVideo.body, 400, 'unsupported_format', assert);
    const beyond = await call('POST', `/${small.uploadId}/parts`, { partNumbers: [7, 8] });
    assertErrorEnvelope(beyond.body, 400, 'invalid_part_number', assert);
  });

  it("take at each part URL only a body of that part's size: storage refuses a larger or smaller one", async () => {
    const fileSize = 5 * MiB + 1234;
    const upload = await start(fileSize, 5 * MiB);
    const r = await call('POST', `/${upload.uploadId}/parts`, { partNumbers: [1, 2] });
    const [first, last] = r.body.body.parts as Array<{ partNumber: number; signedURL: string }>;
    assert.deepEqual(new URL(first!.signedURL).searchParams.get('X-Amz-SignedHeaders')?.split(';'), [
      'content-length',
      'host',
    ]);
    const send = async (url: string, size: number) => {
      const response = await fetch(url, { method: 'PUT', body: Buffer.from(bytes(size, 9)) });
      await response.arrayBuffer();
      return response.status;
    };
    for (const [part, sizes] of [
      [first!, [5 * MiB + 1, 5 * MiB - 1, 20 * MiB]],
      [last!, [1235, 1233, 5 * MiB]],
    ] as const) {
      for (const size of sizes)
        assert.equal(await send(part.signedURL, size), 403, `part ${part.partNumber}: ${size} bytes`);
    }
    assert.deepEqual((await call('GET', `/${upload.uploadId}/parts`)).body.body.parts, [], 'storage holds no part');

    assert.equal(await send(first!.signedURL, 5 * MiB), 200);
    assert.equal(await send(last!.signedURL, 1234), 200);
    const completed = await call('POST', `/${upload.uploadId}/complete`);
    assert.deepEqual(completed.body.body, { bucketPath: upload.bucketPath, fileSize });
    assert.equal((await api.storage.head(upload.bucketPath))?.size, fileSize);
    // The upload is complete: its part URLs, still within their hour, store nothing more.
    assert.equal(await send(first!.signedURL, 5 * MiB), 404);
  });

  it('are refused at completion, and aborted, when the whole is over the size limit', async () => {
    // The limit shrunk below this upload: crossing the real 5 GB one would store 5 GB.
    const strict = await api.buildAnother({ maxSourceBytes: 6 * MiB - 1 });
    const upload = await start(6 * MiB, 5 * MiB);
    await putParts(upload.uploadId, { 1: bytes(5 * MiB, 1), 2: bytes(MiB, 2) });
    const storageUploadId = await storageUploadIdOf(upload.uploadId);
    const r = await strict.inject({
      method: 'POST',
      url: `/v1/api/${t.org.id}/environments/${t.envA.id}/uploads/multipart/${upload.uploadId}/complete`,
      headers: { 'x-api-key': t.keys.full },
    });
    assertErrorEnvelope(r.json(), 400, 'invalid_file_size', assert);
    assert.match(r.json<Json>().detail, /6291456 bytes; at most 6291455/);
    await assert.rejects(api.storage.listParts(upload.bucketPath, storageUploadId), NoSuchUploadError);
    assert.equal(await api.storage.head(upload.bucketPath), undefined);
    assertErrorEnvelope((await call('POST', `/${upload.uploadId}/complete`)).body, 404, 'upload_not_found', assert);
  });

  it('are not found from another environment, and gone once aborted', async () => {
    const upload = await start(6 * MiB, 5 * MiB);
    const fromOther = await call('GET', `/${upload.uploadId}/parts`, undefined, t.keys.otherFull);
    assert.ok(fromOther.status === 403 || fromOther.status === 404, JSON.stringify(fromOther.body));
    const otherEnv = await api.app.inject({
      method: 'GET',
      url: `/v1/api/${t.org.id}/environments/${t.envB.id}/uploads/multipart/${upload.uploadId}/parts`,
      headers: { 'x-api-key': t.keys.full },
    });
    assertErrorEnvelope(otherEnv.json(), 404, 'upload_not_found', assert);

    await putParts(upload.uploadId, { 1: bytes(5 * MiB, 1) });
    const storageUploadId = await storageUploadIdOf(upload.uploadId);
    assert.equal((await api.storage.listParts(upload.bucketPath, storageUploadId)).length, 1);
    const aborted = await call('DELETE', `/${upload.uploadId}`);
    assert.deepEqual(aborted.body.body, { uploadId: upload.uploadId, status: 'aborted' });
    await assert.rejects(api.storage.listParts(upload.bucketPath, storageUploadId), NoSuchUploadError);
    assertErrorEnvelope((await call('GET', `/${upload.uploadId}/parts`)).body, 404, 'upload_not_found', assert);
    assertErrorEnvelope((await call('POST', `/${upload.uploadId}/complete`)).body, 404, 'upload_not_found', assert);
  });

  it('left open for a day are aborted by the sweep, and storage drops their parts', async () => {
    const startedAt = clock;
    const upload = await start(6 * MiB, 5 * MiB);
    await putParts(upload.uploadId, { 1: bytes(5 * MiB, 1) });
    const kept = await start(6 * MiB, 5 * MiB);
    await call('POST', `/${kept.uploadId}/parts`, { partNumbers: [1] });
    const storageUploadId = await storageUploadIdOf(upload.uploadId);

    // 23 hours on, nothing is due.
    assert.deepEqual(await sweepAbandonedMultipartUploads(api, new Date(startedAt + 23 * hour)), []);
    assert.equal((await api.storage.listParts(upload.bucketPath, storageUploadId)).length, 1);

    // The kept one completes in time; the other is still open after 24 hours and is swept.
    await putParts(kept.uploadId, { 1: bytes(5 * MiB, 1), 2: bytes(MiB, 2) });
    assert.equal((await call('POST', `/${kept.uploadId}/complete`)).status, 200);
    clock = startedAt + 24 * hour + 1000;
    const swept = await sweepAbandonedMultipartUploads(api, new Date(clock));
    assert.ok(swept.includes(upload.uploadId), `swept ${swept.join(', ')}`);
    assert.ok(!swept.includes(kept.uploadId));
    await assert.rejects(api.storage.listParts(upload.bucketPath, storageUploadId), NoSuchUploadError);
    assertErrorEnvelope((await call('GET', `/${upload.uploadId}/parts`)).body, 404, 'upload_not_found', assert);
    assert.equal((await api.storage.get(kept.bucketPath))?.length, 6 * MiB);
    // A second sweep finds nothing left to do.
    assert.deepEqual(await sweepAbandonedMultipartUploads(api, new Date(clock)), []);
  });

  it('are in the OpenAPI document the API serves, with the error envelope', async () => {
    const document = (await api.app.inject({ method: 'GET', url: '/v1/api/openapi.json' })).json() as Json;
    const base = '/{orgID}/environments/{envID}/uploads/multipart';
    const operations: Array<[string, string]> = [
      [base, 'post'],
      [`${base}/{uploadId}/parts`, 'post'],
      [`${base}/{uploadId}/parts`, 'get'],
      [`${base}/{uploadId}/complete`, 'post'],
      [`${base}/{uploadId}`, 'delete'],
    ];
    for (const [path, method] of operations) {
      const operation = document.paths[path]?.[method];
      assert.ok(operation, `${method} ${path} is documented`);
      assert.ok(operation.responses['200'], `${method} ${path} documents its answer`);
      assert.ok(
        operation.responses['404']?.content['application/json'].schema,
        `${method} ${path} documents the error envelope`,
      );
    }
  });
});
