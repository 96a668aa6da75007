// Encode scheduling on real processes (docs/architecture.md#encode-scheduling): two nodes with one
// slot each and three encodes. A node killed with SIGKILL mid-encode: its encode fails over at once
// and, with the queued encode, takes the survivor's slot as soon as it frees; no slot sits idle while
// work waits. A node that hangs (SIGSTOP): the registry drops it at the heartbeat timeout and its
// encode moves. Timelines come from the nodes' own logs (when each slot went to a job and came back).
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countDecodedFrames, countFramesInFile, makeClip } from '@kino/test/support/media';
import { nodeJobs, startFarm, waitForRunningEncodes, type Farm, type FarmNodeProcess } from './farm.ts';

/** The bound: a queued encode starts within 2 s of a slot freeing anywhere in the farm. */
const slotHandOverMs = 2_000;

let farm: Farm;
let workDir: string;
/**
 * Long enough (12 s, on `slower` with one thread) that an encode seen running is still running
 * when the test acts on it, on a fast machine too: what the test reads of the farm is a snapshot a
 * few hundred milliseconds old by then.
 */
let clip: Buffer;
let sourceFrames: number;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-farm-scheduling-'));
  let clipPath: string;
  [farm, clipPath] = await Promise.all([
    // A heartbeat timeout a loaded machine's nodes never miss by accident, so only the SIGSTOPped
    // node is dropped (the default 3 s let busy nodes flap on a loaded 2-core machine).
    startFarm({ heartbeatTimeoutMs: 10_000 }),
    // 640x360 on `standard`: one rendition (360p), so one encode per video.
    makeClip({ seconds: 12, width: 640, height: 360, fps: 30, audio: true, path: join(workDir, 'clip.mp4') }),
  ]);
  clip = await readFile(clipPath);
  sourceFrames = await countFramesInFile(clipPath);
});

afterAll(async () => {
  await farm?.stop();
  await rm(workDir, { recursive: true, force: true });
});

async function assertPlaysEveryFrame(videoId: string): Promise<void> {
  const dir = join(workDir, videoId);
  await farm.downloadVideo(videoId, dir);
  assert.equal(await countDecodedFrames(join(dir, 'hls', 'master.m3u8')), sourceFrames, `${videoId}: master`);
  assert.equal(await countDecodedFrames(join(dir, 'hls', '360p', 'playlist.m3u8')), sourceFrames, `${videoId}: 360p`);
}

/** The failure that sent a video's encode to its last attempt, from the workflow's history. */
async function lastEncodeFailure(videoId: string): Promise<{ type: string; message: string } | undefined> {
  const history = await farm.temporal.workflow.getHandle(`video:${videoId}`).fetchHistory();
  for (const event of history.events ?? []) {
    const failure = event.activityTaskStartedEventAttributes?.lastFailure;
    if (failure) return { type: failure.applicationFailureInfo?.type ?? '', message: failure.message ?? '' };
  }
  return undefined;
}

const nodes: FarmNodeProcess[] = [];

test('kill -9 a node running one of three encodes: the lost and the queued encode take the freed slot at once', async () => {
  // One slot each, one ffmpeg thread and a slow preset: encodes last long enough to queue and interrupt.
  nodes.push(...(await Promise.all([farm.startNode('a', { threads: 1 }), farm.startNode('b', { threads: 1 })])));
  const videoIds: string[] = [];
  for (let i = 0; i < 3; i += 1)
    videoIds.push(await farm.submitVideo(clip, { compressionRatio: 'slower', filename: `clip-${i}.mp4` }));

  const running = await waitForRunningEncodes(farm, videoIds, 2);
  const lost = running[0]!;
  const victim = nodes.find((n) => n.nodeId === lost.nodeId)!;
  const survivor = nodes.find((n) => n.nodeId !== lost.nodeId)!;
  const queued = videoIds.find((id) => !running.some((r) => r.videoId === id))!;
  const killedAt = Date.now();
  await victim.process.kill9();

  for (const videoId of videoIds) await farm.waitForStatus(videoId, 'ready', 180_000);

  // The lost encode's failure is the node's, noticed when its stream broke.
  const failure = await lastEncodeFailure(lost.videoId);
  assert.equal(failure?.type, 'NodeLost', JSON.stringify(failure));
  // Every encode ended on a live node: the lost one and the queued one on the survivor.
  for (const videoId of [lost.videoId, queued]) {
    const result = (await farm.temporal.workflow.getHandle(`video:${videoId}`).result()) as {
      renditions: Array<{ outcome: { nodeId: string } }>;
    };
    assert.equal(result.renditions[0]!.outcome.nodeId, survivor.nodeId, `${videoId} ran on the survivor`);
  }

  // The survivor's slot timeline after the kill: each time its slot came back, with the lost or the
  // queued encode waiting, the next one took it within the bound. (Before the kill both slots were
  // busy; after it the victim had none.)
  // Every job holds the slot; each video's audio.m4a (an audioTrack job, quick) is one of them.
  const slotJobs = (await nodeJobs(survivor)).filter((job) => (job.endedAt ?? Infinity) > killedAt);
  const jobs = slotJobs.filter((job) => job.kind !== 'audioTrack');
  const jobOf = (videoId: string) => jobs.find((job) => job.jobId.startsWith(`${videoId}-`));
  assert.ok(jobOf(lost.videoId), `the lost encode ran on the survivor: ${JSON.stringify(jobs)}`);
  assert.ok(jobOf(queued), `the queued encode ran on the survivor: ${JSON.stringify(jobs)}`);
  assert.equal(jobs.length, 3, `three HLS encodes on the survivor since the kill: ${JSON.stringify(slotJobs)}`);
  for (let k = 1; k < slotJobs.length; k += 1) {
    const idleMs = slotJobs[k]!.startedAt - slotJobs[k - 1]!.endedAt!;
    assert.ok(idleMs >= 0, `one job at a time on a one-slot node: ${JSON.stringify(slotJobs)}`);
    // An audio.m4a is scheduled only once its video's encode is done: it did not wait for the slot.
    if (slotJobs[k]!.kind !== 'audioTrack')
      assert.ok(idleMs <= slotHandOverMs, `${slotJobs[k]!.jobId} waited ${idleMs} ms on the survivor's free slot`);
  }

  for (const videoId of videoIds) await assertPlaysEveryFrame(videoId);
  // The dead node gets no more work; no slot is held.
  const dead = await farm.db
    .selectFrom('encode_nodes')
    .select('state')
    .where('id', '=', victim.nodeId)
    .executeTakeFirstOrThrow();
  assert.equal(dead.state, 'gone');
  assert.deepEqual(await farm.db.selectFrom('node_leases').select('id').execute(), []);
  assert.deepEqual(await farm.db.selectFrom('encode_queue').select('id').execute(), []);
});

test('a node that hangs (SIGSTOP) is dropped at the heartbeat timeout and its encode moves to the other node', async () => {
  nodes.push(await farm.startNode('c', { threads: 1 }));
  const videoId = await farm.submitVideo(clip, { compressionRatio: 'slower', filename: 'hang.mp4' });
  const [running] = await waitForRunningEncodes(farm, [videoId], 1);
  const hung = nodes.find((n) => n.nodeId === running!.nodeId)!;
  const other = nodes.find(
    (n) => n.nodeId !== hung.nodeId && n.process.child.exitCode === null && n.process.child.signalCode === null,
  )!;
  hung.process.pause();
  try {
    await farm.waitForStatus(videoId, 'ready', 120_000);
    const result = (await farm.temporal.workflow.getHandle(`video:${videoId}`).result()) as {
      renditions: Array<{ outcome: { nodeId: string } }>;
    };
    assert.equal(result.renditions[0]!.outcome.nodeId, other.nodeId, 'the encode moved to the other node');
    // Dropped by the registry (no heartbeat), or by gRPC's keepalive (a ping every 15 s, answered
    // within 10 s: it can come first when the last ping went out just before the node stopped),
    // either on the call (`Connection dropped`) or on the node's Connect stream, whose end the
    // relay passes on as `the node's connection ended mid-call`; never by the encode's own silence
    // timeout (`no word from the node`).
    const failure = await lastEncodeFailure(videoId);
    assert.equal(failure?.type, 'NodeLost', JSON.stringify(failure));
    assert.match(failure!.message, /registry dropped the node|Connection dropped|the node's connection ended mid-call/);
    const row = await farm.db
      .selectFrom('encode_nodes')
      .select('state')
      .where('id', '=', hung.nodeId)
      .executeTakeFirstOrThrow();
    assert.equal(row.state, 'gone');
    await assertPlaysEveryFrame(videoId);
  } finally {
    hung.process.resume();
  }
});
