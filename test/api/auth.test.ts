// The whole auth matrix against real PostgreSQL: who may call what, and what everyone else gets.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { newId } from '@kino/infra';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import {
  createOperatorToken,
  createVideo,
  getApiKey,
  registerNode,
  revokeOperatorToken,
} from '@kino/database/repositories';
import { defaultEncodingParameters } from '@kino/proto/contract';
import {
  assertErrorEnvelope,
  seedTenancy,
  startApiHarness,
  type ApiHarness,
  type Json,
  type Tenancy,
} from './harness.ts';

let services: TestServices;
let api: ApiHarness;
let t: Tenancy;
let videoA: string;
let videoB: string;
let otherOrgVideo: string;

async function call(url: string, key?: string, headers: Record<string, string> = {}) {
  const response = await api.app.inject({
    method: 'GET',
    url: `/v1/api${url}`,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...headers },
  });
  return { status: response.statusCode, body: response.json() as Json, headers: response.headers };
}

async function seedVideo(orgId: string, envId: string): Promise<string> {
  const id = newId('vid');
  await createVideo(api.db, {
    id,
    orgId,
    envId,
    name: `video in ${envId}`,
    storagePath: `uploads/${orgId}/${envId}/${id}/clip.mp4`,
    videoQuality: 'standard',
    allowPublicAccess: true,
    parameters: defaultEncodingParameters,
  });
  return id;
}

beforeAll(async () => {
  services = await startTestServices({ postgres: true });
  api = await startApiHarness(services);
  t = await seedTenancy(api.db);
  videoA = await seedVideo(t.org.id, t.envA.id);
  videoB = await seedVideo(t.org.id, t.envB.id);
  otherOrgVideo = await seedVideo(t.otherOrg.id, t.otherEnv.id);
});

afterAll(async () => {
  await api?.close();
  await services?.stop();
});

describe('authentication', () => {
  it('refuses a request without a key: 401 unauthorized, with the envelope and rate-limit headers', async () => {
    const r = await call(`/${t.org.id}/environments`);
    assert.equal(r.status, 401);
    assertErrorEnvelope(r.body, 401, 'unauthorized', assert);
    assert.equal(r.body.title, 'Unauthorized');
    assert.ok(r.headers['x-ratelimit-limit']);
  });

  it('refuses an unknown key and a malformed one', async () => {
    const unknown = await call(`/${t.org.id}/environments`, `svc_live_${'A'.repeat(32)}`);
    assert.equal(unknown.status, 401);
    assertErrorEnvelope(unknown.body, 401, 'unauthorized', assert);
    const malformed = await call(`/${t.org.id}/environments`, 'not-a-key');
    assert.equal(malformed.status, 401);
    // A real key with one character changed is another key.
    const flipped = t.keys.full.slice(0, -1) + (t.keys.full.endsWith('a') ? 'b' : 'a');
    assert.equal((await call(`/${t.org.id}/environments`, flipped)).status, 401);
  });

  it('refuses a revoked key', async () => {
    const r = await call(`/${t.org.id}/environments`, t.keys.revoked);
    assert.equal(r.status, 401);
    assertErrorEnvelope(r.body, 401, 'unauthorized', assert);
  });

  it('refuses an expired key like a revoked one', async () => {
    const r = await call(`/${t.org.id}/environments`, t.keys.expired);
    assert.equal(r.status, 401);
    assertErrorEnvelope(r.body, 401, 'unauthorized', assert);
    assert.match(r.body.detail, /expired/);
  });

  it('authenticates nothing with an Authorization header alone, even holding a valid key', async () => {
    for (const value of [`Bearer ${t.keys.full}`, t.keys.full]) {
      const r = await call(`/${t.org.id}/environments`, undefined, { authorization: value });
      assert.equal(r.status, 401);
      assertErrorEnvelope(r.body, 401, 'unauthorized', assert);
      assert.match(r.body.detail, /X-Api-Key/);
    }
  });

  it('records when a key was last used', async () => {
    await call(`/${t.org.id}/environments`, t.keys.full);
    const key = await getApiKey(api.db, t.keyIds.full);
    assert.ok(key?.last_used_at instanceof Date);
  });
});

describe('environment keys', () => {
  it('reach their own environment', async () => {
    const r = await call(`/${t.org.id}/environments/${t.envA.id}/videos`, t.keys.envA);
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.body.videos.map((v: { id: string }) => v.id),
      [videoA],
    );
  });

  it('get 403 forbidden on another environment of the same organization', async () => {
    const r = await call(`/${t.org.id}/environments/${t.envB.id}/videos`, t.keys.envA);
    assert.equal(r.status, 403);
    assertErrorEnvelope(r.body, 403, 'forbidden', assert);
  });

  it('get 403 on an environment that does not exist (they cannot reach it either way)', async () => {
    const r = await call(`/${t.org.id}/environments/env_doesnotexist00/videos`, t.keys.envA);
    assert.equal(r.status, 403);
  });

  it('see only their own environment in organization-wide lists', async () => {
    const envs = await call(`/${t.org.id}/environments`, t.keys.envA);
    assert.equal(envs.status, 200);
    assert.deepEqual(
      envs.body.body.environments.map((e: { id: string }) => e.id),
      [t.envA.id],
    );
    const videos = await call(`/${t.org.id}/videos`, t.keys.envB);
    assert.equal(videos.status, 200);
    assert.deepEqual(
      videos.body.body.videos.map((v: { id: string }) => v.id),
      [videoB],
    );
    assert.equal(videos.body.body.pagination.total, 1);
  });

  it('get 403 on a video of another environment, 200 on their own', async () => {
    assert.equal((await call(`/${t.org.id}/videos/${videoA}/details`, t.keys.envA)).status, 200);
    const r = await call(`/${t.org.id}/videos/${videoB}/details`, t.keys.envA);
    assert.equal(r.status, 403);
    assertErrorEnvelope(r.body, 403, 'forbidden', assert);
  });

  it("get 403 on another organization's path", async () => {
    const r = await call(`/${t.otherOrg.id}/environments/${t.otherEnv.id}/videos`, t.keys.envA);
    assert.equal(r.status, 403);
    assertErrorEnvelope(r.body, 403, 'forbidden', assert);
  });
});

describe('full-access keys', () => {
  it('reach every environment of their organization', async () => {
    for (const env of [t.envA, t.envB]) {
      assert.equal((await call(`/${t.org.id}/environments/${env.id}/videos`, t.keys.full)).status, 200);
    }
    const envs = await call(`/${t.org.id}/environments`, t.keys.full);
    assert.deepEqual(
      envs.body.body.environments.map((e: { id: string }) => e.id).sort(),
      [t.envA.id, t.envB.id].sort(),
    );
    const videos = await call(`/${t.org.id}/videos`, t.keys.full);
    assert.deepEqual(videos.body.body.videos.map((v: { id: string }) => v.id).sort(), [videoA, videoB].sort());
  });

  it('get 404 environment_not_found for an unknown environment', async () => {
    const r = await call(`/${t.org.id}/environments/env_doesnotexist00/videos`, t.keys.full);
    assert.equal(r.status, 404);
    assertErrorEnvelope(r.body, 404, 'environment_not_found', assert);
  });

  it("get 404 environment_not_found for another organization's environment under their own organization", async () => {
    const r = await call(`/${t.org.id}/environments/${t.otherEnv.id}/videos`, t.keys.full);
    assert.equal(r.status, 404);
    assertErrorEnvelope(r.body, 404, 'environment_not_found', assert);
  });

  it("get 403 on another organization's path", async () => {
    for (const path of [
      `/${t.otherOrg.id}/environments`,
      `/${t.otherOrg.id}/environments/${t.otherEnv.id}/videos`,
      `/${t.otherOrg.id}/videos`,
      `/${t.otherOrg.id}/videos/${otherOrgVideo}/details`,
    ]) {
      const r = await call(path, t.keys.full);
      assert.equal(r.status, 403, path);
      assertErrorEnvelope(r.body, 403, 'forbidden', assert);
    }
  });

  it("get 404 video_not_found for another organization's video under their own organization", async () => {
    const r = await call(`/${t.org.id}/videos/${otherOrgVideo}/details`, t.keys.full);
    assert.equal(r.status, 404);
    assertErrorEnvelope(r.body, 404, 'video_not_found', assert);
  });
});

describe('system keys', () => {
  it('reach every organization', async () => {
    const ours = await call(`/${t.org.id}/environments/${t.envB.id}/videos`, t.keys.system);
    assert.equal(ours.status, 200);
    const theirs = await call(`/${t.otherOrg.id}/environments/${t.otherEnv.id}/videos`, t.keys.system);
    assert.equal(theirs.status, 200);
    assert.deepEqual(
      theirs.body.body.videos.map((v: { id: string }) => v.id),
      [otherOrgVideo],
    );
    assert.equal((await call(`/${t.org.id}/videos/${videoB}/details`, t.keys.system)).status, 200);
    assert.equal((await call(`/${t.org.id}/environments`, t.keys.system)).body.body.environments.length, 2);
  });

  it('get 404 organization_not_found for an organization that does not exist', async () => {
    const r = await call(`/org_doesnotexist00/environments`, t.keys.system);
    assert.equal(r.status, 404);
    assertErrorEnvelope(r.body, 404, 'organization_not_found', assert);
  });

  it("still get 404 environment_not_found for an environment outside the path's organization", async () => {
    const r = await call(`/${t.org.id}/environments/${t.otherEnv.id}/videos`, t.keys.system);
    assert.equal(r.status, 404);
    assertErrorEnvelope(r.body, 404, 'environment_not_found', assert);
  });
});

describe("the operators' interface", () => {
  const operatorToken = `otk_${'k'.repeat(40)}`;

  it('takes an operator token of the database, or OPERATOR_TOKEN when set, as a bearer, never an API key', async () => {
    // Without OPERATOR_TOKEN: the database's tokens only, each until it is revoked.
    const asOperator = async (token: string) =>
      (await call('/operators/nodes', undefined, { authorization: `Bearer ${token}` })).status;
    assert.equal(await asOperator(operatorToken), 401);
    const stored = await createOperatorToken(api.db, { name: 'auth test' });
    assert.equal(await asOperator(stored.token), 200);
    const lookalike = `${stored.token.slice(0, -1)}${stored.token.endsWith('a') ? 'b' : 'a'}`;
    assert.equal(await asOperator(lookalike), 401, 'same prefix, another token');
    await revokeOperatorToken(api.db, stored.record.id);
    assert.equal(await asOperator(stored.token), 401);

    const app = await api.buildAnother({ config: { ...api.config, OPERATOR_TOKEN: operatorToken } });
    const node = await registerNode(api.db, {
      address: '10.9.8.7:7101',
      slots: 2,
      version: '0.1.0',
      labels: { zone: 'x' },
      encoders: ['libx264', 'hevc_nvenc'],
      qualityFfmpeg: true,
    });
    const get = async (
      headers: Record<string, string>,
      url = '/v1/api/operators/nodes',
      method: 'GET' | 'POST' = 'GET',
    ) => {
      const response = await app.inject({ method, url, headers });
      return { status: response.statusCode, body: response.json() as Json };
    };
    const wrong: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-the-token' },
      { 'x-api-key': t.keys.system },
      { authorization: operatorToken },
    ];
    for (const headers of wrong) {
      const refused = await get(headers);
      assert.equal(refused.status, 401, JSON.stringify(headers));
      assertErrorEnvelope(refused.body, 401, 'unauthorized', assert);
    }
    const listed = await get({ authorization: `Bearer ${operatorToken}` });
    assert.equal(listed.status, 200);
    const shown = listed.body.body.nodes.find((n: Json) => n.id === node.id);
    assert.deepEqual(
      { ...shown, registeredAt: undefined, lastHeartbeatAt: undefined },
      {
        id: node.id,
        address: '10.9.8.7:7101',
        version: '0.1.0',
        labels: { zone: 'x' },
        encoders: ['libx264', 'hevc_nvenc'],
        qualityFfmpeg: true,
        // Registered with no speech engine: it transcribes nothing.
        transcribeLanguages: [],
        slots: 2,
        slotsInUse: 0,
        state: 'active',
        drainRequestedAt: null,
        registeredAt: undefined,
        lastHeartbeatAt: undefined,
      },
    );
    const drained = await get(
      { authorization: `Bearer ${operatorToken}` },
      `/v1/api/operators/nodes/${node.id}/drain`,
      'POST',
    );
    assert.equal(drained.body.body.state, 'draining');
    assert.ok(Date.parse(drained.body.body.drainRequestedAt) > 0);
    const unknown = await get(
      { authorization: `Bearer ${operatorToken}` },
      '/v1/api/operators/nodes/node_unknown/undrain',
      'POST',
    );
    assertErrorEnvelope(unknown.body, 404, 'node_not_found', assert);
  });
});
