// List totals under concurrent writers: two `kino api` processes create (upload-url, PUT, process),
// delete and retry videos while two `kino orchestrator` processes finish them on a real encode node:
// a small clip becomes ready, a file that only opens like an MP4 fails at the probe. During each
// round, every consistent snapshot of the database has `video_counts` equal to a count of the rows
// and `video_search` equal to the live rows; once each round's videos have settled and at the end,
// the lists' `pagination.total` of every status filter, with and without a search, per environment
// and organization-wide, equals SELECT count(*).
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, kinoBin, startProcess, waitFor, type ManagedProcess } from '@kino/dev';
import { createEnvironment } from '@kino/database/repositories';
import { openDatabase, type Db, type VideoStatus } from '@kino/database';
import { startTestStack, type TestStack } from '../support/stack.ts';
import { makeClip } from '../support/media.ts';
import { MP4_OPENING } from './harness.ts';

const STATUSES: (VideoStatus | undefined)[] = [undefined, 'transcoding', 'ready', 'failed'];
const ROUNDS = 2;
const CREATES_PER_API_AND_ROUND = 3;
// The spec's limits stay in force, raised so that this many calls in a minute are not refused.
const RATE_LIMITS = 'general=100000,video=100000,uploadUrl=100000,uploadUrlPerKey=100000';

let stack: TestStack;
let db: Db;
let secondApi: ManagedProcess;
let secondOrchestrator: ManagedProcess;
let clipDir: string;
let clip: Uint8Array;
let apiUrls: string[];
let orgId: string;
let apiKey: string;
let envIds: string[];

beforeAll(async () => {
  clipDir = await mkdtemp(join(tmpdir(), 'kino-totals-'));
  [stack] = await Promise.all([
    startTestStack({ nodes: 1, without: ['delivery'], analytics: 'none', env: { api: { RATE_LIMITS } } }),
    // 2 s at 320x240: one small rendition, encoded in seconds.
    makeClip({ seconds: 2, width: 320, height: 240, fps: 15, audio: false, path: join(clipDir, 'clip.mp4') }),
  ]);
  clip = await readFile(join(clipDir, 'clip.mp4'));
  ({ orgId, apiKey } = stack.status.devJson);
  db = await openDatabase(stack.env.DATABASE_URL!);
  envIds = [stack.status.devJson.envId, (await createEnvironment(db, { orgId, name: 'second' })).id];

  const [apiPort, registryPort] = [await freePort(), await freePort()];
  secondApi = startProcess('api-2', process.execPath, [kinoBin, 'api'], {
    env: {
      ...process.env,
      ...stack.env,
      API_HOST: '127.0.0.1',
      API_PORT: String(apiPort),
      RATE_LIMITS,
      LOG_LEVEL: 'warn',
    },
    logFile: join(stack.dir, 'logs', 'api-2.log'),
  });
  // A second worker of the same task queue: workflows and activities land on either orchestrator.
  secondOrchestrator = startProcess('orchestrator-2', process.execPath, [kinoBin, 'orchestrator'], {
    env: {
      ...process.env,
      ...stack.env,
      REGISTRY_HOST: '127.0.0.1',
      REGISTRY_PORT: String(registryPort),
      ORCHESTRATOR_METRICS_PORT: '0',
      LOG_LEVEL: 'info',
    },
    logFile: join(stack.dir, 'logs', 'orchestrator-2.log'),
  });
  apiUrls = [stack.status.devJson.apiUrl, `http://127.0.0.1:${apiPort}/v1/api`];
  await waitFor('the second API', async () => (await fetch(`${apiUrls[1]}/health`)).status === 200, {
    timeoutMs: 60_000,
    intervalMs: 200,
  });
}, 180_000);

afterAll(async () => {
  await secondOrchestrator?.stop();
  await secondApi?.stop();
  await db?.destroy();
  await stack?.stop();
  await rm(clipDir, { recursive: true, force: true });
});

async function call(apiUrl: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { 'X-Api-Key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, json: (await response.json()) as { body: Record<string, unknown> } };
}

/** Upload and process: a clip that becomes ready, or a file that opens like an MP4 and fails at the probe. */
async function createVideo(apiUrl: string, envId: string, body: Uint8Array): Promise<void> {
  const ticket = await call(apiUrl, 'POST', `/${orgId}/environments/${envId}/videos/upload-url`, {
    filename: 'clip.mp4',
    fileSize: body.length,
  });
  assert.equal(ticket.status, 200, JSON.stringify(ticket.json));
  const { signedURL, bucketPath } = ticket.json.body as { signedURL: string; bucketPath: string };
  const put = await fetch(signedURL, {
    method: 'PUT',
    body: Buffer.from(body),
    headers: { 'content-type': 'video/mp4' },
  });
  await put.arrayBuffer();
  assert.equal(put.status, 200);
  const processed = await call(apiUrl, 'POST', `/${orgId}/environments/${envId}/videos/process`, {
    storagePath: bucketPath,
    videoQuality: 'standard',
    allowPublicAccess: true,
  });
  assert.equal(processed.status, 200, JSON.stringify(processed.json));
}

/** Ids of the first videos of a status in the organization, as a list shows them. */
async function listed(apiUrl: string, status: VideoStatus, pageSize: number): Promise<string[]> {
  const list = await call(apiUrl, 'GET', `/${orgId}/videos?status=${status}&pageSize=${pageSize}`);
  assert.equal(list.status, 200);
  return (list.json.body.videos as { id: string }[]).map((v) => v.id);
}

/** One API's share of a round: creates in both environments, deletes a ready and a failed video, retries a failed one. */
async function apiRound(apiUrl: string): Promise<void> {
  const creates = Array.from({ length: CREATES_PER_API_AND_ROUND }, (_, i) =>
    createVideo(apiUrl, envIds[i % envIds.length]!, i % 3 === 0 ? MP4_OPENING : clip),
  );
  const deletes = (async () => {
    const ids = [...(await listed(apiUrl, 'ready', 1)), ...(await listed(apiUrl, 'failed', 1))];
    for (const id of ids) {
      const deleted = await call(apiUrl, 'DELETE', `/${orgId}/videos/${id}`);
      // The other API (or a retry) may have got there first.
      assert.ok([200, 400, 409].includes(deleted.status), JSON.stringify(deleted.json));
    }
  })();
  const retries = (async () => {
    for (const id of await listed(apiUrl, 'failed', 1)) {
      // A retry runs the workflow again (and fails at the probe again); the other API may have
      // deleted or retried the video first.
      const retried = await call(apiUrl, 'POST', `/${orgId}/videos/${id}/retry`);
      assert.ok([200, 404, 409].includes(retried.status), JSON.stringify(retried.json));
    }
  })();
  await Promise.all([...creates, deletes, retries]);
}

/** Waits until the organization has no video in `transcoding`: the orchestrators have finished the round's work. */
async function settled(): Promise<void> {
  await waitFor(
    'every video ready or failed',
    async () => {
      const { count } = await db
        .selectFrom('videos')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('org_id', '=', orgId)
        .where('status', '=', 'transcoding')
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(count) === 0 || undefined;
    },
    { timeoutMs: 240_000, intervalMs: 250 },
  );
}

/** `video_counts` against a count of the rows, both read in one snapshot. */
async function assertCountsTableExact(): Promise<void> {
  await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const kept = await trx
        .selectFrom('video_counts')
        .select(['env_id', 'status', 'videos'])
        .where('org_id', '=', orgId)
        .where('videos', '<>', 0)
        .execute();
      const counted = await trx
        .selectFrom('videos')
        .select(['env_id', 'status', (eb) => eb.fn.countAll<number>().as('videos')])
        .where('org_id', '=', orgId)
        .where('deleted_at', 'is', null)
        .groupBy(['env_id', 'status'])
        .execute();
      const asText = (rows: { env_id: string; status: string; videos: number | string | bigint }[]) =>
        rows.map((r) => `${r.env_id}/${r.status}=${Number(r.videos)}`).sort();
      assert.deepEqual(asText(kept), asText(counted));
      // video_search, what searches read, holds exactly the live rows, with their current status.
      const searchable = await trx
        .selectFrom('video_search')
        .select(['id', 'env_id', 'status'])
        .where('org_id', '=', orgId)
        .orderBy('id')
        .execute();
      const live = await trx
        .selectFrom('videos')
        .select(['id', 'env_id', 'status'])
        .where('org_id', '=', orgId)
        .where('deleted_at', 'is', null)
        .orderBy('id')
        .execute();
      assert.deepEqual(searchable, live);
    });
}

/** Every list's total, through each API in turn, against SELECT count(*). */
async function assertListTotalsExact(label: string): Promise<void> {
  let turn = 0;
  for (const envId of [...envIds, undefined]) {
    // Without a search the total comes from video_counts; with one, from counting video_search's rows.
    for (const [status, search] of STATUSES.flatMap(
      (status) =>
        [
          [status, undefined],
          [status, 'CLIP'],
        ] as const,
    )) {
      const path = envId ? `/${orgId}/environments/${envId}/videos` : `/${orgId}/videos`;
      const filters = new URLSearchParams({ ...(status ? { status } : {}), ...(search ? { search } : {}) });
      const list = await call(apiUrls[turn++ % apiUrls.length]!, 'GET', `${path}?${filters}`);
      assert.equal(list.status, 200);
      let rows = db.selectFrom('videos').where('org_id', '=', orgId).where('deleted_at', 'is', null);
      if (envId) rows = rows.where('env_id', '=', envId);
      if (status) rows = rows.where('status', '=', status);
      if (search) rows = rows.where('name', 'ilike', `%${search}%`);
      const { count } = await rows.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
      assert.equal(
        (list.json.body.pagination as { total: number }).total,
        Number(count),
        `${label}: ${envId ?? 'organization'}, ${status ?? 'any status'}${search ? `, search ${search}` : ''}`,
      );
    }
  }
}

describe('video list totals under concurrent writers', () => {
  it('equal a count of the rows in every snapshot and at every checkpoint', { timeout: 900_000 }, async () => {
    let snapshots = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      let writing = true;
      // The orchestrators finish videos meanwhile; the round's writes end when they have settled.
      const writes = Promise.all(apiUrls.map(apiRound))
        .then(settled)
        .finally(() => {
          writing = false;
        });
      // Snapshots taken while the writers run, until they are done.
      const watching = (async () => {
        while (writing) {
          await assertCountsTableExact();
          snapshots++;
        }
      })();
      await Promise.all([writes, watching]);
      await assertListTotalsExact(`after round ${round}`);
    }
    await assertCountsTableExact();
    await assertListTotalsExact('at the end');

    // The run did what it claims: videos were created, finished both ways, deleted and checked mid-run.
    const statuses = await db
      .selectFrom('videos')
      .select(['status', 'deleted_at'])
      .where('org_id', '=', orgId)
      .execute();
    assert.equal(statuses.length, ROUNDS * apiUrls.length * CREATES_PER_API_AND_ROUND);
    // Both orchestrators did some of the work.
    for (const log of ['orchestrator.log', 'orchestrator-2.log']) {
      assert.match(await readFile(join(stack.dir, 'logs', log), 'utf8'), /"videoId"/, `${log} ran activities`);
    }
    assert.ok(statuses.some((v) => v.deleted_at !== null));
    assert.ok(statuses.some((v) => v.status === 'ready' && v.deleted_at === null));
    assert.ok(statuses.some((v) => v.status === 'failed'));
    assert.ok(snapshots > 0);
  });
});
