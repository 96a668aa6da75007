// Live streams as a resource (issue 56), through the API on real PostgreSQL: created with the
// defaults or options, listed a page at a time, read, changed, disabled and enabled, their key
// replaced (the old one opens nothing), deleted unless broadcasting, and a private stream's signed
// playback URL; keys see only their own environment's streams; bad values name their field.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { defaultEncodingParameters, streamKeyPattern } from '@kino/proto/contract';
import { hashSecret } from '@kino/database';
import { createVideo, findLiveStreamByKeyHash } from '@kino/database/repositories';
import { newId } from '@kino/infra';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import {
  assertErrorEnvelope,
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
  services = await startTestServices({ postgres: true });
  api = await startApiHarness(services);
  t = await seedTenancy(api.db);
});

afterAll(async () => {
  await api?.close();
  await services?.stop();
});

/** A call to the API with the full key unless another is named. */
const request = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  options: { key?: string; body?: unknown } = {},
) => apiRequest(api.app, method, url, { key: t.keys.full, ...options });

const envPath = () => `/${t.org.id}/environments/${t.envA.id}/live-streams`;
const streamPath = (id: string, action = '') => `/${t.org.id}/live-streams/${id}${action}`;

async function create(body?: unknown): Promise<Json> {
  const created = await request('POST', envPath(), { body });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return created.body.body;
}

describe('live streams', () => {
  it('are created private, low latency and recorded by default, with a key and the URLs an encoder needs', async () => {
    const stream = await create();
    assert.match(stream.liveStreamId, /^ls_[0-9A-Za-z]{16}$/);
    assert.match(stream.streamKey, streamKeyPattern);
    assert.deepEqual(
      { ...stream, liveStreamId: '-', streamKey: '-', createdAt: '-' },
      {
        liveStreamId: '-',
        name: 'Live stream',
        status: 'idle',
        latency: 'low',
        allowPublicAccess: false,
        videoQuality: null,
        record: true,
        reconnectWindowSeconds: 60,
        streamKey: '-',
        ingest: { rtmp: 'rtmp://localhost:1935/live', srt: `srt://localhost:9710?streamid=${stream.streamKey}` },
        playback: { master: null },
        activeVideoId: null,
        createdAt: '-',
      },
    );
    // Ingest finds the stream by the key's hash: the key is the publisher's whole credential.
    assert.equal((await findLiveStreamByKeyHash(api.db, hashSecret(stream.streamKey)))?.id, stream.liveStreamId);
    // Each stream has a key of its own.
    assert.notEqual((await create()).streamKey, stream.streamKey);
  });

  it('take their options; a public one names its master playlist on the delivery host', async () => {
    const stream = await create({
      name: 'Sunday service',
      allowPublicAccess: true,
      latency: 'standard',
      videoQuality: 'high',
      record: false,
      reconnectWindowSeconds: 0,
    });
    assert.deepEqual(
      [stream.name, stream.latency, stream.videoQuality, stream.record, stream.reconnectWindowSeconds],
      ['Sunday service', 'standard', 'high', false, 0],
    );
    assert.equal(
      stream.playback.master,
      `http://delivery.test/v1/public/${t.org.id}/${t.envA.id}/${stream.liveStreamId}/master.m3u8`,
    );
    const read = await request('GET', streamPath(stream.liveStreamId));
    assert.deepEqual(read.body.body, stream);
  });

  it('refuse bad values, naming the field', async () => {
    for (const [body, field, code] of [
      [{ latency: 'instant' }, 'body.latency', 'invalid_latency'],
      [{ reconnectWindowSeconds: 301 }, 'body.reconnectWindowSeconds', 'invalid_reconnect_window'],
      [{ reconnectWindowSeconds: -1 }, 'body.reconnectWindowSeconds', 'invalid_reconnect_window'],
      [{ videoQuality: 'cinema' }, 'body.videoQuality', 'invalid_quality_preset'],
      [{ name: '' }, 'body.name', 'invalid_name'],
    ] as const) {
      const refused = await request('POST', envPath(), { body });
      assert.equal(refused.status, 400, JSON.stringify(body));
      assertErrorEnvelope(refused.body, 400, code, assert);
      assert.ok(
        (refused.body.errors as { location: string }[]).some((error) => error.location === field),
        JSON.stringify(refused.body),
      );
    }
    const unknown = await request('POST', envPath(), { body: { colour: 'red' } });
    assert.equal(unknown.status, 400);
    const patched = await create({ allowPublicAccess: true, latency: 'standard', record: false });
    const empty = await request('PATCH', streamPath(patched.liveStreamId), { body: {} });
    assert.equal(empty.status, 400, 'a change names at least one setting');
    // What a change leaves out stays as it was: no default creeps in.
    const renamed = await request('PATCH', streamPath(patched.liveStreamId), { body: { name: 'renamed' } });
    assert.deepEqual(
      [
        renamed.body.body.name,
        renamed.body.body.allowPublicAccess,
        renamed.body.body.latency,
        renamed.body.body.record,
      ],
      ['renamed', true, 'standard', false],
    );
  });

  it("are listed a page at a time, newest first, each environment its own; another environment's key sees none of them", async () => {
    const envB = `/${t.org.id}/environments/${t.envB.id}/live-streams`;
    const first = await request('POST', envB, { key: t.keys.envB, body: { name: 'first' } });
    const second = await request('POST', envB, { key: t.keys.envB, body: { name: 'second' } });
    const page1 = await request('GET', `${envB}?pageSize=1`, { key: t.keys.envB });
    assert.deepEqual(
      page1.body.body.liveStreams.map((s: Json) => s.name),
      ['second'],
    );
    assert.deepEqual(page1.body.body.pagination, {
      total: 2,
      page: 1,
      pageSize: 1,
      totalPages: 2,
      hasNext: true,
      hasPrevious: false,
    });
    const page2 = await request('GET', `${envB}?pageSize=1&page=2`, { key: t.keys.full });
    assert.deepEqual(
      page2.body.body.liveStreams.map((s: Json) => s.liveStreamId),
      [first.body.body.liveStreamId],
    );
    // Environment A's key: B's list and B's stream are out of its reach; another organization's key finds nothing.
    assert.equal((await request('GET', envB, { key: t.keys.envA })).status, 403);
    const id = second.body.body.liveStreamId as string;
    assert.equal((await request('GET', streamPath(id), { key: t.keys.envA })).status, 403);
    const foreign = await request('GET', `/${t.otherOrg.id}/live-streams/${id}`, { key: t.keys.otherFull });
    assertErrorEnvelope(foreign.body, 404, 'live_stream_not_found', assert);
  });

  it('change their settings, and replace their key: the old key opens nothing from then on', async () => {
    const stream = await create({ name: 'before' });
    const changed = await request('PATCH', streamPath(stream.liveStreamId), {
      body: { name: 'after', latency: 'standard', allowPublicAccess: true },
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(
      [
        changed.body.body.name,
        changed.body.body.latency,
        changed.body.body.allowPublicAccess,
        changed.body.body.record,
      ],
      ['after', 'standard', true, true],
    );
    const reset = await request('POST', streamPath(stream.liveStreamId, '/reset-stream-key'));
    assert.equal(reset.status, 200);
    const newKey = reset.body.body.streamKey as string;
    assert.match(newKey, streamKeyPattern);
    assert.notEqual(newKey, stream.streamKey);
    assert.equal(await findLiveStreamByKeyHash(api.db, hashSecret(stream.streamKey)), undefined);
    assert.equal((await findLiveStreamByKeyHash(api.db, hashSecret(newKey)))?.id, stream.liveStreamId);
    assert.equal((await request('GET', streamPath(stream.liveStreamId))).body.body.streamKey, newKey);
  });

  it('are disabled and enabled again; a missing one is 404 live_stream_not_found on every operation', async () => {
    const stream = await create();
    const disabled = await request('POST', streamPath(stream.liveStreamId, '/disable'));
    assert.equal(disabled.body.body.status, 'disabled');
    assert.equal((await request('POST', streamPath(stream.liveStreamId, '/disable'))).body.body.status, 'disabled');
    const enabled = await request('POST', streamPath(stream.liveStreamId, '/enable'));
    assert.equal(enabled.body.body.status, 'idle');
    const missing = 'ls_0000000000000000';
    for (const [method, action] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/reset-stream-key'],
      ['POST', '/disable'],
      ['POST', '/enable'],
      ['POST', '/playback-url'],
    ] as const) {
      const answer = await request(
        method,
        streamPath(missing, action),
        method === 'PATCH' ? { body: { record: false } } : {},
      );
      assertErrorEnvelope(answer.body, 404, 'live_stream_not_found', assert);
    }
  });

  it('are deleted unless a broadcast runs (409 live_stream_active); the broadcast stays a video', async () => {
    const stream = await create();
    const videoId = newId('vid');
    await createVideo(api.db, {
      id: videoId,
      orgId: t.org.id,
      envId: t.envA.id,
      name: 'broadcast',
      storagePath: `live/${stream.liveStreamId}`,
      videoQuality: 'standard',
      allowPublicAccess: false,
      parameters: defaultEncodingParameters,
    });
    // A broadcast running, as ingest will record it.
    await api.db
      .updateTable('live_streams')
      .set({ active_video_id: videoId, last_video_id: videoId })
      .where('id', '=', stream.liveStreamId)
      .execute();
    assert.equal((await request('GET', streamPath(stream.liveStreamId))).body.body.status, 'active');
    const refused = await request('DELETE', streamPath(stream.liveStreamId));
    assertErrorEnvelope(refused.body, 409, 'live_stream_active', assert);

    await api.db
      .updateTable('live_streams')
      .set({ active_video_id: null })
      .where('id', '=', stream.liveStreamId)
      .execute();
    const deleted = await request('DELETE', streamPath(stream.liveStreamId));
    assert.deepEqual(deleted.body.body, { liveStreamId: stream.liveStreamId, deleted: true });
    assert.equal((await request('GET', streamPath(stream.liveStreamId))).status, 404);
    assert.equal(await findLiveStreamByKeyHash(api.db, hashSecret(stream.streamKey)), undefined);
    assert.equal((await request('GET', `/${t.org.id}/videos/${videoId}/details`)).status, 200, 'the recording stays');
  });

  it("list their broadcasts: the videos list's liveStreamId filter, in the environment and the organization lists", async () => {
    const [stream, other] = [await create(), await create()];
    const broadcast = async (liveStreamId: string, name: string) => {
      const id = newId('vid');
      await createVideo(api.db, {
        id,
        orgId: t.org.id,
        envId: t.envA.id,
        name,
        storagePath: `live/${liveStreamId}/${id}`,
        videoQuality: 'standard',
        allowPublicAccess: false,
        parameters: defaultEncodingParameters,
        liveStreamId,
      });
      return id;
    };
    const first = await broadcast(stream.liveStreamId, 'first');
    await broadcast(other.liveStreamId, "another stream's");
    const second = await broadcast(stream.liveStreamId, 'second');
    for (const path of [`/${t.org.id}/environments/${t.envA.id}/videos`, `/${t.org.id}/videos`]) {
      const listed = await request('GET', `${path}?liveStreamId=${stream.liveStreamId}&sortBy=name&sortDir=desc`);
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.deepEqual(
        listed.body.body.videos.map((v: Json) => v.id),
        [second, first],
        path,
      );
      assert.equal(listed.body.body.pagination.total, 2, path);
    }
    const none = await request('GET', `/${t.org.id}/videos?liveStreamId=ls_nothing`);
    assert.deepEqual(none.body.body.videos, []);
  });

  it('sign a playback URL bound to the stream, with the lifetime and domains asked for', async () => {
    const stream = await create();
    const signed = await request('POST', streamPath(stream.liveStreamId, '/playback-url'), {
      body: { expiration: '4h', domains: 'example.com,*.example.org' },
    });
    assert.equal(signed.status, 200, JSON.stringify(signed.body));
    const url = new URL(signed.body.body.signed_url);
    assert.equal(`${url.origin}${url.pathname}`, `http://delivery.test/v1/private/${stream.liveStreamId}/master.m3u8`);
    const claims = decodeJwt(url.searchParams.get('token')!);
    assert.equal(claims.sub, stream.liveStreamId);
    assert.equal(signed.body.body.expires_in, 4 * 3600);
    assert.equal(claims.exp! - claims.iat!, 4 * 3600);
    const bad = await request('POST', streamPath(stream.liveStreamId, '/playback-url'), {
      body: { domains: 'https://example.com/' },
    });
    assertErrorEnvelope(bad.body, 400, 'invalid_domains', assert);
  });
});
