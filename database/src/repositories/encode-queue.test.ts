// The encode queue's fair order with chunked videos: a long video's many chunk encodes, queued
// first, do not starve a short video queued after them.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { migrateToLatest, type Db } from '../database.ts';
import { openPgliteDatabase } from '../testing/pglite.ts';
import { registerNode } from './encode-nodes.ts';
import { dispatchEncodeQueue, enqueueEncode } from './encode-queue.ts';

let db: Db;

beforeAll(async () => {
  db = await openPgliteDatabase();
  await migrateToLatest(db);
});

afterAll(async () => {
  await db?.destroy();
});

/** The jobs holding a lease, in the order they were granted (lease rows carry no time: one pass at a time). */
async function grantedJobs(): Promise<string[]> {
  return (await db.selectFrom('node_leases').select('job').execute()).map((row) => row.job).sort();
}

test('a long video\'s chunks queued first take turns with a short video queued after them', async () => {
  await registerNode(db, { address: '127.0.0.1:1', slots: 2, version: 'test', labels: {} });
  for (let chunk = 0; chunk < 4; chunk += 1) await enqueueEncode(db, { videoId: 'vid_long', job: `long-chunk-${chunk}` });
  await enqueueEncode(db, { videoId: 'vid_short', job: 'short-whole' });

  assert.equal(await dispatchEncodeQueue(db, { heartbeatTimeoutMs: 60_000, staleMs: 60_000 }), 2);
  // Slot one: the video that came first. Slot two: the video holding fewer slots, not the long video's next chunk.
  assert.deepEqual(await grantedJobs(), ['long-chunk-0', 'short-whole']);
});
