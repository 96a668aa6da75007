// The encode queue's fair order with chunked videos: a long video's many chunk encodes, queued
// first, do not starve a short video queued after them.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { migrateToLatest, type Db } from '../database.ts';
import { openPgliteDatabase } from '../testing/pglite.ts';
import { registerNode } from './encode-nodes.ts';
import {
  dispatchEncodeQueue,
  enqueueEncode,
  findWhyWaiting,
  listWaitingEncodes,
  raiseSegmentPriority,
  takeGrantedLeases,
} from './encode-queue.ts';
import { leasesStillHeld } from './node-leases.ts';

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

test("a long video's chunks queued first take turns with a short video queued after them", async () => {
  await registerNode(db, { address: '127.0.0.1:1', slots: 2, version: 'test', labels: {} });
  for (let chunk = 0; chunk < 4; chunk += 1)
    await enqueueEncode(db, { videoId: 'vid_long', job: `long-chunk-${chunk}` });
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
    await enqueueEncode(db, {
      videoId: 'vid_jit',
      job: `run-${first}`,
      rank: first,
      segments: { renditions: ['360p', '720p'], firstSegment: first, segmentCount: 2 },
    });
  }
  // A video's entries share its creation time (no videos row here: each took its own now()).
  await db
    .updateTable('encode_queue')
    .set({ video_since: new Date('2026-11-01T00:00:00Z') })
    .execute();
  assert.equal(await dispatch(), 1);
  assert.deepEqual(await grantedJobs(), ['run-1'], 'the one slot: the first run in playback order');

  // A viewer seeks to segment 6: its run (segments 5 and 6) is raised and takes the demand slot.
  assert.equal(await raiseSegmentPriority(db, { videoId: 'vid_jit', rendition: '720p', segment: 6 }), true);
  assert.equal(
    await raiseSegmentPriority(db, { videoId: 'vid_jit', rendition: '1080p', segment: 3 }),
    false,
    'no run makes that rendition',
  );
  assert.equal(
    await raiseSegmentPriority(db, { videoId: 'vid_jit', rendition: '720p', segment: 9 }),
    false,
    'no run makes it',
  );
  assert.equal(await dispatch(), 1);
  assert.deepEqual(await grantedJobs(), ['run-1', 'run-5']);
  const leases = await db.selectFrom('node_leases').select(['job', 'on_demand']).orderBy('job').execute();
  assert.deepEqual(
    leases.map((l) => [l.job, l.on_demand]),
    [
      ['run-1', false],
      ['run-5', true],
    ],
  );
  const granted = await takeGrantedLeases(
    db,
    (await db.selectFrom('encode_queue').select('id').execute()).map((row) => row.id),
  );
  assert.deepEqual(
    granted.map((g) => [g.urgent]).sort(),
    [[false], [true]],
    'the raised entry is urgent: the node runs it ahead',
  );

  // One demand slot per node: a second raised entry waits for a slot.
  await enqueueEncode(db, {
    videoId: 'vid_jit',
    job: 'run-7',
    rank: 7,
    priority: 1,
    segments: { renditions: ['360p'], firstSegment: 7, segmentCount: 2 },
  });
  assert.equal(await dispatch(), 0);
});

test('just in time: a request for a segment of a running run raises its lease once; the run of the next segment goes first among the background', async () => {
  await db.deleteFrom('node_leases').execute();
  await db.deleteFrom('encode_queue').execute();
  await db.deleteFrom('encode_nodes').execute();
  const dispatch = () => dispatchEncodeQueue(db, { heartbeatTimeoutMs: 60_000, staleMs: 60_000 });
  await registerNode(db, { address: '127.0.0.1:3', slots: 2, version: 'test', labels: {} });
  const segments = (first: number) => ({ renditions: ['360p', '720p'], firstSegment: first, segmentCount: 2 });
  const first = await enqueueEncode(db, { videoId: 'vid_run', job: 'run-1', rank: 1, segments: segments(1) });
  await enqueueEncode(db, { videoId: 'vid_run', job: 'run-3', rank: 3, segments: segments(3) });
  const urgent = await enqueueEncode(db, {
    videoId: 'vid_other',
    job: 'first-run',
    priority: 1,
    segments: { renditions: ['360p'], firstSegment: 0, segmentCount: 1 },
  });
  assert.equal(await dispatch(), 2, 'the urgent entry, then the first run in playback order; run-3 waits');
  const leases = async () =>
    Object.fromEntries(
      (
        await db
          .selectFrom('node_leases')
          .select(['job', 'renditions', 'first_segment', 'segment_count', 'raised_at'])
          .execute()
      ).map((l) => [l.job, l]),
    );
  // The grant copies the run's segments; an entry raised before its grant is raised as a lease.
  let held = await leases();
  assert.deepEqual(Object.keys(held).sort(), ['first-run', 'run-1']);
  assert.deepEqual(
    [held['run-1']!.renditions, held['run-1']!.first_segment, held['run-1']!.segment_count],
    [['360p', '720p'], 1, 2],
  );
  assert.equal(held['run-1']!.raised_at, null, 'a background run');
  assert.ok(held['first-run']!.raised_at, 'urgent from the start');
  const urgentRaisedAt = held['first-run']!.raised_at;
  await takeGrantedLeases(db, [first, urgent]);

  // A viewer asks for segment 2: run-1 runs (no entry), so its lease is raised; segment 3, which
  // the viewer asks for next, is run-3's, whose entry becomes the first of the background (not urgent).
  assert.equal(await raiseSegmentPriority(db, { videoId: 'vid_run', rendition: '720p', segment: 2 }), true);
  held = await leases();
  assert.ok(held['run-1']!.raised_at, 'the running run is raised');
  const queued = await db.selectFrom('encode_queue').select(['job', 'priority', 'raised_at']).execute();
  assert.deepEqual(
    queued.map((q) => [q.job, q.priority, q.raised_at !== null]),
    [['run-3', 0, true]],
    'the next run goes first, in the background',
  );
  const raisedAt = held['run-1']!.raised_at;
  assert.equal(
    await raiseSegmentPriority(db, { videoId: 'vid_run', rendition: '720p', segment: 2 }),
    true,
    'asked again (delivery does every second)',
  );
  assert.deepEqual((await leases())['run-1']!.raised_at, raisedAt, 'raised once: the first time stays');
  // The urgent lease is left alone, and the dispatcher sees which held leases are raised.
  assert.equal(await raiseSegmentPriority(db, { videoId: 'vid_other', rendition: '360p', segment: 0 }), true);
  assert.deepEqual((await leases())['first-run']!.raised_at, urgentRaisedAt);
  const ids = (await db.selectFrom('node_leases').select('id').execute()).map((l) => l.id);
  const still = await leasesStillHeld(db, [...ids, 'lease_gone']);
  assert.deepEqual([...still.keys()].sort(), [...ids].sort(), 'a lease gone is not held');
  assert.ok([...still.values()].every((l) => l.raised));

  // Only the segment asked for and the next: segment 0 of vid_run is no run's, and its next (1) is
  // run-1's; segment 5 is nobody's.
  assert.equal(
    await raiseSegmentPriority(db, { videoId: 'vid_run', rendition: '720p', segment: 0 }),
    false,
    'no run makes segment 0 here',
  );
  assert.equal(await raiseSegmentPriority(db, { videoId: 'vid_run', rendition: '720p', segment: 5 }), false);

  // Raised between its grant and its waiter taking it: the run starts urgent (its entry, granted, is not raised).
  await db.deleteFrom('node_leases').execute();
  const later = await enqueueEncode(db, { videoId: 'vid_run', job: 'run-5', rank: 5, segments: segments(5) });
  assert.equal(await dispatch(), 2, 'run-3 and run-5');
  assert.deepEqual(
    (await db.selectFrom('node_leases').select(['job', 'raised_at']).execute()).map((l) => [l.job, l.raised_at]).sort(),
    [
      ['run-3', null],
      ['run-5', null],
    ],
    'the next run (run-3) went first, as background work',
  );
  assert.equal(await raiseSegmentPriority(db, { videoId: 'vid_run', rendition: '360p', segment: 6 }), true);
  assert.deepEqual(
    (await takeGrantedLeases(db, [later])).map((g) => g.urgent),
    [true],
  );
});

test("just in time: the run after a requested segment is granted before the video's earlier-ranked background runs, as background work", async () => {
  await db.deleteFrom('node_leases').execute();
  await db.deleteFrom('encode_queue').execute();
  await db.deleteFrom('encode_nodes').execute();
  await registerNode(db, { address: '127.0.0.1:4', slots: 1, version: 'test', labels: {} });
  const segments = (first: number) => ({ renditions: ['720p'], firstSegment: first, segmentCount: 2 });
  // Playback order says run-7 first (say the viewer played it already, and seeks back); the
  // viewer now waits for segment 2, made already, and asks for 3 (run-3's) next.
  await enqueueEncode(db, { videoId: 'vid_next', job: 'run-7', rank: 1, segments: segments(7) });
  await enqueueEncode(db, { videoId: 'vid_next', job: 'run-3', rank: 2, segments: segments(3) });
  assert.equal(
    await raiseSegmentPriority(db, { videoId: 'vid_next', rendition: '720p', segment: 2 }),
    false,
    'no run makes segment 2',
  );
  assert.equal(await dispatchEncodeQueue(db, { heartbeatTimeoutMs: 60_000, staleMs: 60_000 }), 1);
  const granted = await db.selectFrom('node_leases').select(['job', 'on_demand', 'raised_at']).execute();
  assert.deepEqual(
    granted.map((l) => [l.job, l.on_demand, l.raised_at]),
    [['run-3', false, null]],
  );
});

test("just in time: an entry queued `ahead` (a second bootstrap run) takes a free slot before the video's audio track and earlier-ranked runs, as background work; a request for its segment makes it urgent", async () => {
  await db.deleteFrom('node_leases').execute();
  await db.deleteFrom('encode_queue').execute();
  await db.deleteFrom('encode_nodes').execute();
  await registerNode(db, { address: '127.0.0.1:5', slots: 1, version: 'test', labels: {} });
  const dispatch = () => dispatchEncodeQueue(db, { heartbeatTimeoutMs: 60_000, staleMs: 60_000 });
  // The audio track ranks first in playback order; the second bootstrap run is queued last.
  await enqueueEncode(db, { videoId: 'vid_boot', job: 'audio-track', rank: 0 });
  await enqueueEncode(db, {
    videoId: 'vid_boot',
    job: 'run-2',
    rank: 2,
    segments: { renditions: ['720p'], firstSegment: 1, segmentCount: 2 },
  });
  await enqueueEncode(db, {
    videoId: 'vid_boot',
    job: 'boot-1',
    rank: 1,
    ahead: true,
    segments: { renditions: ['720p'], firstSegment: 0, segmentCount: 1 },
  });
  assert.equal(await dispatch(), 1);
  const granted = await db.selectFrom('node_leases').select(['job', 'on_demand', 'raised_at']).execute();
  assert.deepEqual(
    granted.map((l) => [l.job, l.on_demand, l.raised_at]),
    [['boot-1', false, null]],
    'the free slot, as background work (nice 10 beside the urgent first run)',
  );
  // A player asks for segment 0 while it runs: its lease is raised (the node renices it to 0).
  assert.equal(await raiseSegmentPriority(db, { videoId: 'vid_boot', rendition: '720p', segment: 0 }), true);
  const raised = await db.selectFrom('node_leases').select('raised_at').where('job', '=', 'boot-1').executeTakeFirst();
  assert.notEqual(raised?.raised_at, null);
});

test('an encode goes only to a node that can run it; the rest of the queue does not wait behind it; one no node can run says why', async () => {
  await db.deleteFrom('node_leases').execute();
  await db.deleteFrom('encode_queue').execute();
  await db.deleteFrom('encode_nodes').execute();
  const dispatch = () => dispatchEncodeQueue(db, { heartbeatTimeoutMs: 60_000, staleMs: 60_000 });
  const plain = await registerNode(db, {
    address: '127.0.0.1:5',
    slots: 2,
    version: 'test',
    labels: {},
    encoders: ['libx264', 'libx265'],
  });
  const av1 = await enqueueEncode(db, { videoId: 'vid_av1', job: 'av1-chunk-0', needs: { qualityFfmpeg: true } });
  const acme = await enqueueEncode(db, { videoId: 'vid_acme', job: 'acme-whole', needs: { labels: ['acme'] } });
  await enqueueEncode(db, { videoId: 'vid_h264', job: 'h264-whole' });
  await enqueueEncode(db, { videoId: 'vid_hevc', job: 'hevc-whole', needs: { encoderOneOf: ['libx265'] } });

  assert.equal(await dispatch(), 2, 'the H.264 and HEVC encodes, queued after the two the node cannot run');
  assert.deepEqual(await grantedJobs(), ['h264-whole', 'hevc-whole']);
  assert.equal(await findWhyWaiting(db, 'vid_av1'), 'no live encode node has the quality ffmpeg (SVT-AV1, libvmaf)');
  assert.equal(await findWhyWaiting(db, 'vid_acme'), 'no live encode node has the label acme');
  assert.deepEqual(
    (await listWaitingEncodes(db)).map((w) => [w.job, w.waitingFor]),
    [
      ['av1-chunk-0', 'no live encode node has the quality ffmpeg (SVT-AV1, libvmaf)'],
      ['acme-whole', 'no live encode node has the label acme'],
    ],
  );

  // A node with the quality ffmpeg joins: the AV1 chunk goes there (not to the plain node's free
  // slot: it has none left anyway), and its reason is gone; the labelled encode still waits.
  await db.deleteFrom('node_leases').where('node_id', '=', plain.id).execute();
  const quality = await registerNode(db, {
    address: '127.0.0.1:6',
    slots: 1,
    version: 'test',
    labels: { name: 'q' },
    encoders: ['libx264'],
    qualityFfmpeg: true,
  });
  assert.equal(await dispatch(), 1);
  assert.deepEqual(
    (await takeGrantedLeases(db, [av1, acme])).map((g) => [g.entryId, g.nodeId]),
    [[av1, quality.id]],
    'the plain node had two free slots, and the AV1 chunk still went to the quality node',
  );
  assert.equal(await findWhyWaiting(db, 'vid_av1'), undefined);
  assert.equal(await findWhyWaiting(db, 'vid_acme'), 'no live encode node has the label acme');

  // A node labelled acme (and more) joins: the labelled encode runs there.
  const acmeNode = await registerNode(db, {
    address: '127.0.0.1:7',
    slots: 1,
    version: 'test',
    labels: { acme: '', gpu: '' },
  });
  assert.equal(await dispatch(), 1);
  assert.deepEqual(
    (await takeGrantedLeases(db, [acme])).map((g) => g.nodeId),
    [acmeNode.id],
  );
  assert.deepEqual(await listWaitingEncodes(db), []);
});

test("without read-ahead, a raise leaves the next segment's run in the background's order: a first bootstrap run raising the rest of segment 0", async () => {
  await db.deleteFrom('node_leases').execute();
  await db.deleteFrom('encode_queue').execute();
  const run = (job: string, firstSegment: number, segmentCount: number) =>
    enqueueEncode(db, {
      videoId: 'vid_boot',
      job,
      rank: firstSegment,
      segments: { renditions: ['360p', '720p'], firstSegment, segmentCount },
    });
  // The second bootstrap run (the 2-6 s of segment 0) and the run of segments 1 and 2.
  await run('boot-rest', 0, 1);
  await run('run-1', 1, 2);
  assert.equal(
    await raiseSegmentPriority(db, { videoId: 'vid_boot', rendition: '360p', segment: 0, readAhead: false }),
    true,
  );
  const queued = await db.selectFrom('encode_queue').select(['job', 'priority', 'raised_at']).orderBy('job').execute();
  assert.deepEqual(
    queued.map((q) => [q.job, q.priority, q.raised_at !== null]),
    [
      ['boot-rest', 1, true],
      ['run-1', 0, false],
    ],
    'the rest of segment 0 is urgent; the next run keeps its place',
  );
});
