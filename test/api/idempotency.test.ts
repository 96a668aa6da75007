// Idempotency-Key on POST: a retried request whose first response was lost gets that response again
// instead of a conflict. Real PostgreSQL (the keys are shared by every API instance through it),
// SeaweedFS and Temporal, since the request replayed is the real `videos/process`.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { Client, Connection } from '@temporalio/client';
import { freePort } from '@kino/dev';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import type { ApiApp } from '@kino/api';
import {
  assertErrorEnvelope,
  MP4_OPENING,
  seedTenancy,
  startApiHarness,
  type ApiHarness,
  type Json,
  type Tenancy,
} from './harness.ts';

let services: TestServices;
let api: ApiHarness;
let t: Tenancy;

beforeAll(async () => {
  services = await startTestServices({ postgres: true, temporal: true, s3: true });
  api = await startApiHarness(services, { rateLimits: { uploadUrlPerKey: { limit: 1000 } } });
  t = await seedTenancy(api.db);
});

afterAll(async () => {
  await api?.close();
  await services?.stop();
});

async function post(
  url: string,
  body: unknown,
  { key = t.keys.full, idempotencyKey, app = api.app }: { key?: string; idempotencyKey?: string; app?: ApiApp } = {},
) {
  const response = await app.inject({
    method: 'POST',
    url: `/v1/api${url}`,
    headers: { 'x-api-key': key, ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) },
    payload: body as object,
  });
  return { status: response.statusCode, body: response.json() as Json, headers: response.headers };
}

/** An uploaded object ready for processing. */
async function uploadedPath(): Promise<string> {
  const ticket = await post(`/${t.org.id}/environments/${t.envA.id}/videos/upload-url`, {
    filename: 'clip.mp4',
    fileSize: MP4_OPENING.length,
  });
  assert.equal(ticket.status, 200, JSON.stringify(ticket.body));
  const { signedURL, bucketPath } = ticket.body.body as { signedURL: string; bucketPath: string };
  const put = await fetch(signedURL, {
    method: 'PUT',
    body: Buffer.from(MP4_OPENING),
    headers: { 'content-type': 'video/mp4' },
  });
  await put.arrayBuffer();
  assert.equal(put.status, 200);
  return bucketPath;
}

const processUrl = () => `/${t.org.id}/environments/${t.envA.id}/videos/process`;
const processBody = (storagePath: string) => ({ storagePath, videoQuality: 'standard', allowPublicAccess: true });

async function videosAt(storagePath: string): Promise<number> {
  const rows = await api.db.selectFrom('videos').select('id').where('storage_path', '=', storagePath).execute();
  return rows.length;
}

describe('Idempotency-Key', () => {
  it('replays the first response to a retry whose response was lost: one video, the same answer', async () => {
    const path = await uploadedPath();
    const first = await post(processUrl(), processBody(path), { idempotencyKey: 'process-lost-response-1' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    // The client never saw `first` and sends the same request again.
    const retried = await post(processUrl(), processBody(path), { idempotencyKey: 'process-lost-response-1' });
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.deepEqual(retried.body, first.body);
    assert.equal(retried.headers['idempotent-replayed'], 'true');
    assert.equal(await videosAt(path), 1);
    // Another API instance on the same database answers alike.
    const other = await api.buildAnother();
    const elsewhere = await post(processUrl(), processBody(path), {
      idempotencyKey: 'process-lost-response-1',
      app: other,
    });
    assert.equal(elsewhere.status, 200, JSON.stringify(elsewhere.body));
    assert.deepEqual(elsewhere.body, first.body);
    // Without the key the same request is a new one, refused as before.
    const withoutKey = await post(processUrl(), processBody(path));
    assertErrorEnvelope(withoutKey.body, 409, 'processing_in_progress', assert);
  });

  it('replays a client error as it was, and keys per API key', async () => {
    // Refused by the handler (no upload at that path), not by validation: the request ran.
    const body = processBody(`uploads/${t.org.id}/${t.envA.id}/upl_0000000000000000/clip.mp4`);
    const first = await post(processUrl(), body, { idempotencyKey: 'same-key' });
    assertErrorEnvelope(first.body, 400, 'invalid_storage_path', assert);
    const again = await post(processUrl(), body, { idempotencyKey: 'same-key' });
    assert.equal(again.status, 400);
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    // The same key sent with another API key of the organization is another request.
    const url = `/${t.org.id}/environments/${t.envA.id}/videos/upload-url`;
    const otherKey = await post(
      url,
      { filename: 'a.mp4', fileSize: 4 },
      { idempotencyKey: 'same-key', key: t.keys.envA },
    );
    assert.equal(otherKey.status, 200, JSON.stringify(otherKey.body));
  });

  it('answers 422 idempotency_key_reused to the same key with another body or path', async () => {
    const [pathA, pathB] = [await uploadedPath(), await uploadedPath()];
    assert.equal((await post(processUrl(), processBody(pathA), { idempotencyKey: 'reused-key' })).status, 200);
    const otherBody = await post(processUrl(), processBody(pathB), { idempotencyKey: 'reused-key' });
    assert.equal(otherBody.status, 422);
    assertErrorEnvelope(otherBody.body, 422, 'idempotency_key_reused', assert);
    assert.equal(await videosAt(pathB), 0);
    const otherPath = await post(
      `/${t.org.id}/environments/${t.envA.id}/webhooks`,
      { url: 'https://example.com/hook' },
      { idempotencyKey: 'reused-key' },
    );
    assertErrorEnvelope(otherPath.body, 422, 'idempotency_key_reused', assert);
  });

  it('lets one of concurrent requests with the same key run: the others answer 409 idempotency_key_in_use or its replay', async () => {
    const path = await uploadedPath();
    const results = await Promise.all(
      [1, 2, 3].map(() => post(processUrl(), processBody(path), { idempotencyKey: 'concurrent-key' })),
    );
    const succeeded = results.filter((r) => r.status === 200);
    assert.ok(succeeded.length >= 1, JSON.stringify(results.map((r) => r.body)));
    for (const r of succeeded) assert.deepEqual(r.body, succeeded[0]!.body);
    for (const r of results.filter((x) => x.status !== 200))
      assertErrorEnvelope(r.body, 409, 'idempotency_key_in_use', assert);
    assert.equal(await videosAt(path), 1);
  });

  it('refuses a key that is empty, too long or not visible ASCII: 400 invalid_idempotency_key', async () => {
    const path = await uploadedPath();
    for (const key of ['', 'x'.repeat(256), 'has space', 'café']) {
      const r = await post(processUrl(), processBody(path), { idempotencyKey: key });
      assert.equal(r.status, 400, `${JSON.stringify(key)}: ${JSON.stringify(r.body)}`);
      assertErrorEnvelope(r.body, 400, 'invalid_idempotency_key', assert);
    }
    assert.equal(await videosAt(path), 0);
    assert.equal((await post(processUrl(), processBody(path), { idempotencyKey: 'x'.repeat(255) })).status, 200);
  });

  it('keeps no 5xx: a retry after 503 runs anew under the same key', async () => {
    // No retry interceptor: the client gives up at once instead of retrying for ~10 s.
    const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, interceptors: [] });
    const withoutTemporal = await api.buildAnother({ temporal: new Client({ connection }) });
    const path = await uploadedPath();
    const failed = await post(processUrl(), processBody(path), { idempotencyKey: 'after-503', app: withoutTemporal });
    assertErrorEnvelope(failed.body, 503, 'service_unavailable', assert);
    await connection.close();
    const retried = await post(processUrl(), processBody(path), { idempotencyKey: 'after-503' });
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(retried.headers['idempotent-replayed'], undefined);
    assert.equal(await videosAt(path), 1);
  });

  it('runs a request anew once its key is older than 24 hours', async () => {
    const url = `/${t.org.id}/environments/${t.envA.id}/webhooks`;
    const first = await post(url, { url: 'https://example.com/first' }, { idempotencyKey: 'old-key' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    await sql`update idempotency_keys set created_at = created_at - interval '25 hours' where idempotency_key = 'old-key'`.execute(
      api.db,
    );
    const later = await post(url, { url: 'https://example.com/first' }, { idempotencyKey: 'old-key' });
    assert.equal(later.status, 200, JSON.stringify(later.body));
    assert.notEqual(later.body.body.id, first.body.body.id);
  });

  it('is documented on every POST of the OpenAPI document', async () => {
    const doc = (await api.app.inject({ url: '/v1/api/openapi.json' })).json<Json>();
    const posts = Object.entries(doc.paths as Record<string, Json>).filter(([, operations]) => operations.post);
    assert.ok(posts.length >= 4);
    for (const [path, operations] of posts) {
      const header = operations.post.parameters?.find((p: Json) => p.in === 'header' && p.name === 'idempotency-key');
      assert.ok(header, `POST ${path} documents Idempotency-Key`);
      assert.equal(header.required, false);
      assert.equal(header.schema.maxLength, 255);
      assert.ok(
        operations.post.responses['409'] && operations.post.responses['422'],
        `POST ${path} documents 409 and 422`,
      );
    }
  });
});
