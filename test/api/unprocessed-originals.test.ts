// Originals never processed, on real PostgreSQL, Temporal and SeaweedFS: an upload no `process`
// came for is removed from storage a day after its ticket expired, by the sweep every API instance
// runs, on a clock the test moves; an original a video was made from stays.
import { afterAll, beforeAll, it } from 'vitest';
import assert from 'node:assert/strict';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { sweepAbandonedMultipartUploads, sweepUnprocessedOriginals } from '@kino/control-plane';
import { assertErrorEnvelope, MP4_OPENING, seedTenancy, startApiHarness, type ApiHarness, type Json, type Tenancy } from './harness.ts';

const hour = 3600 * 1000;

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

async function post(path: string, body: object): Promise<{ status: number; body: Json }> {
  const response = await api.app.inject({
    method: 'POST',
    url: `/v1/api/${t.org.id}/environments/${t.envA.id}${path}`,
    headers: { 'x-api-key': t.keys.full },
    payload: body,
  });
  return { status: response.statusCode, body: response.json() as Json };
}

/** An upload URL, and the file PUT to storage through it: what a client does before `process`. */
async function upload(): Promise<{ bucketPath: string; expiresAt: number }> {
  const r = await post('/videos/upload-url', { filename: 'clip.mp4', fileSize: MP4_OPENING.length });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const ticket = r.body.body as { signedURL: string; bucketPath: string; expiresAt: number };
  const response = await fetch(ticket.signedURL, { method: 'PUT', body: Buffer.from(MP4_OPENING), headers: { 'content-type': 'video/mp4' } });
  assert.equal(response.status, 200, await response.text());
  return ticket;
}

const processBody = (storagePath: string) => ({ storagePath, videoQuality: 'standard', allowPublicAccess: true });

it('an original no video was made from is removed a day after its ticket expired; one processed stays', async () => {
  const processed = await upload();
  assert.equal((await post('/videos/process', processBody(processed.bucketPath))).status, 200);
  const abandoned = await upload();
  // A multipart upload still open when its day is up is the multipart sweep's: it aborts it first.
  const multipart = await post('/uploads/multipart', { filename: 'big.mp4', fileSize: 6 * 1024 * 1024 });
  assert.equal(multipart.status, 200, JSON.stringify(multipart.body));
  const open = multipart.body.body as { bucketPath: string; expiresAt: number };
  const expired = abandoned.expiresAt * 1000;

  // 23 hours after the ticket expired, nothing is due.
  assert.deepEqual(await sweepUnprocessedOriginals(api, new Date(expired + 23 * hour)), []);
  assert.ok(await api.storage.head(abandoned.bucketPath), 'kept within the day');

  const dayAfter = new Date(expired + 24 * hour + 1000);
  assert.deepEqual(await sweepUnprocessedOriginals(api, dayAfter), [abandoned.bucketPath]);
  assert.equal(await api.storage.head(abandoned.bucketPath), undefined, 'the original never processed is gone');
  assert.ok(await api.storage.head(processed.bucketPath), 'the processed one stays');
  assertErrorEnvelope((await post('/videos/process', processBody(abandoned.bucketPath))).body, 400, 'invalid_storage_path', assert);
  // Settled uploads are not looked at again.
  assert.deepEqual(await sweepUnprocessedOriginals(api, dayAfter), []);

  // The open multipart upload: left alone until the multipart sweep has aborted it.
  const multipartDayAfter = new Date(open.expiresAt * 1000 + 24 * hour + 1000);
  assert.deepEqual(await sweepUnprocessedOriginals(api, multipartDayAfter), []);
  assert.equal((await sweepAbandonedMultipartUploads(api, multipartDayAfter)).length, 1);
  assert.deepEqual(await sweepUnprocessedOriginals(api, multipartDayAfter), [open.bucketPath]);
});
