// The dispatcher's watch over the leases this process holds, on PGlite (no notifications: it polls):
// a viewer's request for a segment of a background run already running reaches that run's encode,
// and a node watched for a short job that the registry stops counting on ends that job.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { migrateToLatest, type Db } from '@kino/database';
import { openPgliteDatabase } from '@kino/database/testing';
import {
  expireDeadNodes,
  markNodeLost,
  raiseSegmentPriority,
  registerNode,
  setNodeDrainRequested,
} from '@kino/database/repositories';
import { createNodeFarm, type CountedNodeFarm } from './node-farm.ts';

let db: Db;
let farm: CountedNodeFarm;

beforeAll(async () => {
  db = await openPgliteDatabase();
  await migrateToLatest(db);
  farm = createNodeFarm({ db, nodeToken: 'token', heartbeatTimeoutMs: 60_000, pollMs: 50 });
});

afterAll(async () => {
  await farm?.close();
  await db?.destroy();
});

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('a held lease a viewer raises while its encode runs: `raised` aborts, once; an urgent lease is never raised', async () => {
  await registerNode(db, { address: '127.0.0.1:1', slots: 2, version: 'test', labels: {} });
  const signal = new AbortController().signal;
  const run = (first: number, priority: number) => ({
    priority,
    rank: first,
    segments: { renditions: ['360p'], firstSegment: first, segmentCount: 2 },
  });
  const urgent = await farm.acquire({
    videoId: 'vid_1',
    job: 'run-0',
    signal,
    maxWaitMs: 10_000,
    placement: run(0, 1),
  });
  const background = await farm.acquire({
    videoId: 'vid_1',
    job: 'run-2',
    signal,
    maxWaitMs: 10_000,
    placement: run(2, 0),
  });
  assert.ok(urgent && background);
  assert.deepEqual([urgent.urgent, background.urgent], [true, false]);
  assert.equal(background.raised.aborted, false);

  // A viewer asks for segment 3, which the background run makes.
  assert.equal(await raiseSegmentPriority(db, { videoId: 'vid_1', rendition: '360p', segment: 3 }), true);
  await until('the background lease to be raised', () => background.raised.aborted);
  // The same pass saw the urgent lease raised in the table (since its grant): left alone.
  assert.equal(urgent.raised.aborted, false);
  assert.equal(background.dropped.aborted, false, 'still held');
  await farm.release(background);
  await farm.release(urgent);
});

test('a node watched for a short job: `gone` aborts once the registry stops counting on it (lost, or expired by its sweep), never for a drain', async () => {
  const register = async (port: number) =>
    (await registerNode(db, { address: `127.0.0.1:${port}`, slots: 1, version: 'test', labels: {} })).id;
  const [drained, lost, silent] = [await register(2), await register(3), await register(4)];
  const watches = [drained, lost, silent].map((nodeId) => farm.watchNode(nodeId));
  const [drainedWatch, lostWatch, silentWatch] = watches as [
    (typeof watches)[0],
    (typeof watches)[0],
    (typeof watches)[0],
  ];
  await setNodeDrainRequested(db, drained, true);
  await markNodeLost(db, lost);
  await until('the lost node to be gone', () => lostWatch.gone.aborted);
  // Hung: its last heartbeat older than the timeout; silent alone, it is still counted on until
  // the registry's sweep expires it, as an encode's lease is.
  await db
    .updateTable('encode_nodes')
    .set({ last_heartbeat_at: new Date(Date.now() - 61_000) })
    .where('id', '=', silent)
    .execute();
  // A pass after the backdating has run once a node lost since then is seen gone.
  const witnessId = await register(5);
  const witness = farm.watchNode(witnessId);
  await markNodeLost(db, witnessId);
  await until('a pass after the backdating', () => witness.gone.aborted);
  assert.equal(silentWatch.gone.aborted, false, 'silent, not yet expired');
  assert.deepEqual(await expireDeadNodes(db, 60_000), [silent]);
  await until('the expired node to be gone', () => silentWatch.gone.aborted);
  assert.equal(drainedWatch.gone.aborted, false, 'a drained node finishes what it runs');
  for (const watch of [...watches, witness]) watch.stop();
});
