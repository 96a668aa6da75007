// List totals under concurrent writers: two `kino api` processes create (upload-url, PUT, process),
// delete and retry videos while an orchestrator-like process finishes them (ready or failed) through
// the repository calls the orchestrator makes. During each round, every consistent snapshot of the
// database has `video_counts` equal to a count of the rows; after each round and at the end, the
// lists' `pagination.total` of every status filter, per environment and organization-wide, equals
// SELECT count(*).
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort, startProcess, waitFor, type ManagedProcess } from '@kino/infra/dev';
import { createEnvironment, openDatabase, type Db, type VideoStatus } from '@kino/control-plane';
import { kinoBin } from '../../cli/src/dev-stack/parts.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';
import { MP4_OPENING } from './harness.ts';

const STATUSES: (VideoStatus | undefined)[] = [undefined, 'transcoding', 'ready', 'failed'];
const ROUNDS = 4;
const CREATES_PER_API_AND_ROUND = 3;
// The spec's limits stay in force, raised so that this many calls in a minute are not refused.
const RATE_LIMITS = 'general=100000,video=100000,uploadUrl=100000,uploadUrlPerKey=100000';

let stack: TestStack;
let db: Db;
let secondApi: ManagedProcess;
let finisher: ChildProcess;
let apiUrls: string[];
let orgId: string;
let apiKey: string;
let envIds: string[];

beforeAll(async () => {
  stack = await startTestStack({ nodes: 0, without: ['orchestrator', 'delivery'], analytics: 'none', env: { api: { RATE_LIMITS } } });
  ({ orgId, apiKey } = stack.status.devJson);
  db = await openDatabase(stack.env.DATABASE_URL!);
  envIds = [stack.status.devJson.envId, (await createEnvironment(db, { orgId, name: 'second' })).id];

  const port = await freePort();
  secondApi = startProcess('api-2', process.execPath, [kinoBin, 'api'], {
    env: { ...process.env, ...stack.env, API_HOST: '127.0.0.1', API_PORT: String(port), RATE_LIMITS, LOG_LEVEL: 'warn' },
    logFile: join(stack.dir, 'logs', 'api-2.log'),
  });
  apiUrls = [stack.status.devJson.apiUrl, `http://127.0.0.1:${port}/v1/api`];
  await waitFor('the second API', async () => (await fetch(`${apiUrls[1]}/health`)).status === 200, { timeoutMs: 60_000, intervalMs: 200 });

  finisher = fork(join(import.meta.dirname, 'support', 'video-finisher.ts'), {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, DATABASE_URL: stack.env.DATABASE_URL },
  });
  await new Promise<void>((resolve, reject) => {
    finisher.once('message', () => resolve());
    finisher.once('exit', (code) => reject(new Error(`the finisher exited (${code})`)));
  });
}, 180_000);

afterAll(async () => {
  finisher?.send('stop');
  await secondApi?.stop();
  await db?.destroy();
  await stack?.stop();
});

async function call(apiUrl: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { 'X-Api-Key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, json: (await response.json()) as { body: Record<string, unknown> } };
}

async function createVideo(apiUrl: string, envId: string): Promise<void> {
  const ticket = await call(apiUrl, 'POST', `/${orgId}/environments/${envId}/videos/upload-url`, { filename: 'clip.mp4', fileSize: MP4_OPENING.length });
  assert.equal(ticket.status, 200, JSON.stringify(ticket.json));
  const { signedURL, bucketPath } = ticket.json.body as { signedURL: string; bucketPath: string };
  const put = await fetch(signedURL, { method: 'PUT', body: Buffer.from(MP4_OPENING), headers: { 'content-type': 'video/mp4' } });
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
  const creates = Array.from({ length: CREATES_PER_API_AND_ROUND }, (_, i) => createVideo(apiUrl, envIds[i % envIds.length]!));
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
      // The first run's workflow still exists (no orchestrator runs it): the retry is turned down with
      // 409 and the video put back to failed; its status moves twice all the same.
      const retried = await call(apiUrl, 'POST', `/${orgId}/videos/${id}/retry`);
      assert.ok([200, 404, 409].includes(retried.status), JSON.stringify(retried.json));
    }
  })();
  await Promise.all([...creates, deletes, retries]);
}

function finishTranscoding(): Promise<number> {
  return new Promise((resolve, reject) => {
    finisher.once('message', (message: { finished?: number; error?: string }) =>
      message.error === undefined ? resolve(message.finished ?? 0) : reject(new Error(message.error)),
    );
    finisher.send({ orgId });
  });
}

/** `video_counts` against a count of the rows, both read in one snapshot. */
async function assertCountsTableExact(): Promise<void> {
  await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const kept = await trx.selectFrom('video_counts').select(['env_id', 'status', 'videos']).where('org_id', '=', orgId).where('videos', '<>', 0).execute();
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
    });
}

/** Every list's total, through each API in turn, against SELECT count(*). */
async function assertListTotalsExact(label: string): Promise<void> {
  let turn = 0;
  for (const envId of [...envIds, undefined]) {
    for (const status of STATUSES) {
      const path = envId ? `/${orgId}/environments/${envId}/videos` : `/${orgId}/videos`;
      const list = await call(apiUrls[turn++ % apiUrls.length]!, 'GET', `${path}${status ? `?status=${status}` : ''}`);
      assert.equal(list.status, 200);
      let rows = db.selectFrom('videos').where('org_id', '=', orgId).where('deleted_at', 'is', null);
      if (envId) rows = rows.where('env_id', '=', envId);
      if (status) rows = rows.where('status', '=', status);
      const { count } = await rows.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
      assert.equal((list.json.body.pagination as { total: number }).total, Number(count), `${label}: ${envId ?? 'organization'}, ${status ?? 'any status'}`);
    }
  }
}

describe('video list totals under concurrent writers', () => {
  it('equal a count of the rows in every snapshot and at every checkpoint', { timeout: 120_000 }, async () => {
    let finished = 0;
    let snapshots = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      let writing = true;
      const writes = Promise.all([...apiUrls.map(apiRound), finishTranscoding().then((n) => (finished += n))]).finally(() => {
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
    finished += await finishTranscoding();
    await assertCountsTableExact();
    await assertListTotalsExact('at the end');

    // The run did what it claims: videos were created, finished both ways, deleted and checked mid-run.
    const statuses = await db.selectFrom('videos').select(['status', 'deleted_at']).where('org_id', '=', orgId).execute();
    assert.equal(statuses.length, ROUNDS * apiUrls.length * CREATES_PER_API_AND_ROUND);
    assert.ok(finished > 0);
    assert.ok(statuses.some((v) => v.deleted_at !== null));
    assert.ok(statuses.some((v) => v.status === 'ready' && v.deleted_at === null));
    assert.ok(statuses.some((v) => v.status === 'failed'));
    assert.ok(snapshots > 0);
  });
});
