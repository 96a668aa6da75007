// The encode queue's fair order with chunked videos: a long video's many chunk encodes, queued
// first, do not starve a short video queued after them.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { migrateToLatest, type Db } from '../database.ts';
import { openPgliteDatabase } from '../testing/pglite.ts';
import { registerNode } from './encode-nodes.ts';
import { dispatchEncodeQueue, enqueueEncode, raiseSegmentPriority, takeGrantedLeases } from './encode-queue.ts';

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

test('just in time: a raised entry goes ahead of everything, on the demand slot when every slot is taken; background runs in playback order', async () => {
  await db.deleteFrom('node_leases').execute();
  await db.deleteFrom('encode_queue').execute();
  await db.deleteFrom('encode_nodes').execute();
  const dispatch = () => dispatchEncodeQueue(db, { heartbeatTimeoutMs: 60_000, staleMs: 60_000 });
  await registerNode(db, { address: '127.0.0.1:2', slots: 1, version: 'test', labels: {} });
  // Enqueued out of playback order (activities start in any order): the rank decides.
  for (const first of [5, 3, 1]) {
    await enqueueEncode(db, { videoId: 'vid_jit', job: `run-${first}`, rank: first, segments: { renditions: ['360p', '720p'], firstSegment: first, segmentCount: 2 } });
  }
  // A video's entries share its creation time (no videos row here: each took its own now()).
  await db.updateTable('encode_queue').set({ video_since: new Date('2026-11-01T00:00:00Z') }).execute();
  assert.equal(await dispatch(), 1);
  assert.deepEqual(await grantedJobs(), ['run-1'], 'the one slot: the first run in playback order');

  // A viewer seeks to segment 6: its run (segments 5 and 6) is raised and takes the demand slot.
  assert.equal(await raiseSegmentPriority(db, { videoId: 'vid_jit', rendition: '720p', segment: 6 }), true);
  assert.equal(await raiseSegmentPriority(db, { videoId: 'vid_jit', rendition: '1080p', segment: 3 }), false, 'no run makes that rendition');
  assert.equal(await raiseSegmentPriority(db, { videoId: 'vid_jit', rendition: '720p', segment: 1 }), false, 'running already: not in the queue');
  assert.equal(await dispatch(), 1);
  assert.deepEqual(await grantedJobs(), ['run-1', 'run-5']);
  const leases = await db.selectFrom('node_leases').select(['job', 'on_demand']).orderBy('job').execute();
  assert.deepEqual(leases.map((l) => [l.job, l.on_demand]), [['run-1', false], ['run-5', true]]);
  const granted = await takeGrantedLeases(db, (await db.selectFrom('encode_queue').select('id').execute()).map((row) => row.id));
  assert.deepEqual(granted.map((g) => [g.urgent]).sort(), [[false], [true]], 'the raised entry is urgent: the node runs it ahead');

  // One demand slot per node: a second raised entry waits for a slot.
  await enqueueEncode(db, { videoId: 'vid_jit', job: 'run-7', rank: 7, priority: 1, segments: { renditions: ['360p'], firstSegment: 7, segmentCount: 2 } });
  assert.equal(await dispatch(), 0);
});
