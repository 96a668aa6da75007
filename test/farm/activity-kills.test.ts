// Every kind of long activity survives a crash of the process it runs on: the orchestrator, and
// (for work on a node) the encode node, killed with SIGKILL while the activity runs. The video is
// `ready`, every frame playing, within a minute of the restart: the activity is retried at its
// heartbeat timeout (10 s), not at its start-to-close timeout (minutes). Every kind of work on a node
// also survives the node hanging (SIGSTOP): it moves once the registry stops counting on the node
// (the node's heartbeat timeout, 10 s here), and the node's late answer, once it runs again, is ignored.
//
// To kill at the right moment however fast the work, the activity is held first: a node (or
// storage) that hangs (SIGSTOP) keeps its connections open and answers nothing, and the registry
// still counts a hung node live for a few seconds (until its heartbeat timeout), so work sent to it
// then waits. Which node gets the work is steered with the operators' drain and with slots: in an idle
// farm short jobs (probe, thumbnail, storyboard) go to the least loaded node with the fewest free
// slots, encodes to the one with the most.
import { afterAll, afterEach, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@kino/dev';
import temporalProto from '@temporalio/proto';
import { hlsPlaylistName, objectKeys, workflowIds } from '@kino/proto/contract';
import { getLiveStream } from '@kino/database/repositories';
import { countDecodedFrames, countFramesInFile, makeClip } from '@kino/test/support/media';
import { publishTestsrc } from '@kino/test/support/live-publisher';
import { attemptsByActivity, nodeJobs, partLogFile, startFarm, type Farm, type FarmNodeProcess } from './farm.ts';

/**
 * The registry's heartbeat timeout: long enough that a node hung just before work is sent to it is
 * still picked (holdProbe, holdWorkAfterProbe), short enough that its work moves well within a minute.
 * The product's default.
 */
const heartbeatTimeoutMs = 10_000;

interface Clip {
  body: Buffer;
  frames: number;
}

let farm: Farm;
let workDir: string;
/** One chunk (6 s): encoded whole. Two chunks (14 s: a last part under one segment would join the one before): an audio track, then the chunks. */
let wholeClip: Clip;
let chunkedClip: Clip;
/** One slot: short jobs go here in an idle farm. */
let shortJobs: FarmNodeProcess;
/** Two slots: encodes are granted here first in an idle farm. */
let encodes: FarmNodeProcess;
let replacements = 0;
const { PENDING_ACTIVITY_STATE_STARTED } = temporalProto.temporal.api.enums.v1.PendingActivityState;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-activity-kills-'));
  const clip = async (seconds: number): Promise<Clip> => {
    const path = await makeClip({
      seconds,
      width: 640,
      height: 360,
      fps: 30,
      audio: true,
      path: join(workDir, `clip-${seconds}.mp4`),
    });
    return { body: await readFile(path), frames: await countFramesInFile(path) };
  };
  [farm, wholeClip, chunkedClip] = await Promise.all([
    // Ingest: the broadcast whose node is killed (the last test).
    startFarm({ heartbeatTimeoutMs, ingest: true, orchestratorEnv: { ENCODE_CHUNK_SECONDS: '6' } }),
    clip(6),
    clip(14),
  ]);
  [shortJobs, encodes] = await Promise.all([
    farm.startNode('short', { slots: 1 }),
    farm.startNode('encodes', { slots: 2 }),
  ]);
});

afterEach(async () => {
  // A test that failed midway leaves nothing hung or drained for the next.
  farm.launcher.process('s3').resume();
  farm.orchestrator.resume();
  for (const node of [shortJobs, encodes]) {
    node.process.resume();
    await farm.kino.nodes.undrain(node.nodeId);
  }
});

afterAll(async () => {
  await farm?.stop();
  await rm(workDir, { recursive: true, force: true });
});

/** How the orchestrator's log names each kind of work on a node (its `<what> on node` line). */
const nodeWork: Record<string, RegExp> = {
  probeSource: /^probe on node$/,
  makeThumbnail: /^thumbnail on node$/,
  makeStoryboard: /^storyboard on node$/,
  encodeAudioTrack: /^audio track on node$/,
  encodeLive: /^live encode of .+ on node$/,
};

/**
 * The node the orchestrator last sent the video's work of `type` to: its log's `<what> on node`
 * line, written as it calls the node. Read there rather than from the activity's heartbeat, which
 * names the node up to 2 s later (the worker throttles an attempt's beats after its first, and a
 * probe's first beat goes out while it reads storage, an audio track's while it queues): seconds
 * a test holding work on a hung node does not have.
 */
async function nodeSentTo(videoId: string, type: string): Promise<string | undefined> {
  const message = nodeWork[type];
  if (!message) throw new Error(`no orchestrator log line is known for ${type}'s node`);
  const log = await readFile(partLogFile(farm, 'orchestrator'), 'utf8');
  let nodeId: string | undefined;
  for (const line of log.split('\n')) {
    if (!line.startsWith('{') || !line.includes(videoId)) continue;
    const entry = JSON.parse(line) as { msg?: string; videoId?: string; nodeId?: string };
    if (entry.videoId === videoId && message.test(entry.msg ?? '')) nodeId = entry.nodeId;
  }
  return nodeId;
}

/**
 * The activity of `type` running now for the video: work on a node once the orchestrator has sent
 * it to one (`nodeSentTo`); with `onNode: false`, its processVideo activity started (not merely
 * scheduled).
 */
async function running(videoId: string, type: string, { onNode = true } = {}): Promise<{ nodeId: string }> {
  return waitFor(
    `${type} of ${videoId} to run${onNode ? ' on a node' : ''}`,
    async () => {
      if (onNode) {
        const nodeId = await nodeSentTo(videoId, type);
        return nodeId ? { nodeId } : undefined;
      }
      const description = await farm.temporal.workflow.getHandle(workflowIds.processVideo(videoId)).describe();
      const activity = description.raw.pendingActivities?.find(
        (a) => a.activityType?.name === type && a.state === PENDING_ACTIVITY_STATE_STARTED,
      );
      return activity ? { nodeId: '' } : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
}

/**
 * Hangs `node` (SIGSTOP) just after its heartbeat has landed: the registry counts on it for the
 * whole heartbeat timeout from here (not what is left of it after a beat up to a third of it old),
 * the window in which work sent to it must be sent. Answers when it stopped.
 */
async function hangAfterHeartbeat(node: FarmNodeProcess): Promise<number> {
  const lastBeat = async () => (await farm.kino.nodes.list()).find((n) => n.id === node.nodeId)?.lastHeartbeatAt;
  const before = await lastBeat();
  await waitFor(`a heartbeat from ${node.name}`, async () => ((await lastBeat()) !== before ? true : undefined), {
    timeoutMs: heartbeatTimeoutMs,
    intervalMs: 20,
  });
  node.process.pause();
  return Date.now();
}

async function killAndRestartOrchestrator(): Promise<void> {
  await farm.orchestrator.kill9();
  farm.orchestrator = await farm.startOrchestrator();
}

/** Kills a node with SIGKILL and starts another with the same slots in its place. */
async function killNode(node: FarmNodeProcess): Promise<FarmNodeProcess> {
  await node.process.kill9();
  replacements += 1;
  return farm.startNode(`${node.name}-${replacements}`, { slots: node === encodes ? 2 : 1 });
}

/** Within a minute of the restart: `ready`, with every frame of the source in its master playlist, and the killed activities retried. */
async function assertReadyAfterRetries(videoId: string, clip: Clip, retried: string[]): Promise<void> {
  await farm.waitForStatus(videoId, 'ready', 60_000);
  const dir = join(workDir, videoId);
  await farm.downloadVideo(videoId, dir);
  assert.equal(await countDecodedFrames(join(dir, 'hls', 'master.m3u8')), clip.frames);
  const attempts = await attemptsByActivity(farm, videoId);
  for (const type of retried) assert.ok((attempts[type] ?? 0) >= 2, `${type} was retried: ${JSON.stringify(attempts)}`);
  const details = await farm.kino.videos.get(farm.orgId, videoId);
  assert.ok(details.thumbnailUrl, 'a thumbnail');
  assert.ok(details.storyboardUrl, 'a storyboard');
}

/** Both nodes hang: the probe waits on one of them. */
async function holdProbe(clip: Clip): Promise<{ videoId: string; nodeId: string }> {
  // Hung once the source is stored: the probe must be sent within the heartbeat timeout of the hang,
  // and a loaded machine's upload would take part of that.
  const videoId = await farm.submitVideo(clip.body, {
    beforeProcess: async () => {
      await Promise.all([hangAfterHeartbeat(shortJobs), hangAfterHeartbeat(encodes)]);
    },
  });
  return { videoId, ...(await running(videoId, 'probeSource')) };
}

/**
 * The probe runs on the short-job node (the encode node drained) and hangs there; then the encode
 * node hangs and is undrained, the short-job node drained, and the probe let go: everything after
 * the probe (thumbnail, storyboard, audio track) goes to the encode node and waits on it. Answers
 * when the encode node stopped.
 */
const afterProbe = ['makeThumbnail', 'makeStoryboard', 'encodeAudioTrack'];
async function holdWorkAfterProbe(clip: Clip): Promise<{ videoId: string; stoppedAt: number }> {
  await farm.kino.nodes.drain(encodes.nodeId);
  const videoId = await farm.submitVideo(clip.body, {
    beforeProcess: async () => {
      await hangAfterHeartbeat(shortJobs);
    },
  });
  assert.equal((await running(videoId, 'probeSource')).nodeId, shortJobs.nodeId);
  const stoppedAt = await hangAfterHeartbeat(encodes);
  await farm.kino.nodes.undrain(encodes.nodeId);
  await farm.kino.nodes.drain(shortJobs.nodeId);
  shortJobs.process.resume();
  for (const type of afterProbe) assert.equal((await running(videoId, type)).nodeId, encodes.nodeId, type);
  return { videoId, stoppedAt };
}

/** How each activity's node job shows in a node's log: its start and its end (an Encode's with its `job`). */
const nodeJobLines: Record<string, { started: string; done: string; job?: string }> = {
  probeSource: { started: 'probe started', done: 'probed' },
  makeThumbnail: { started: 'thumbnail started', done: 'thumbnail done' },
  makeStoryboard: { started: 'storyboard started', done: 'storyboard done' },
  encodeAudioTrack: { started: 'encode started', done: 'encode done', job: 'audioTrack' },
};

interface NodeLogLine {
  msg?: string;
  time: number;
  jobId?: string;
  job?: string;
}

/** The lines of a node's log about the video's jobs of `type` with the message `msg`. */
async function jobLines(
  node: FarmNodeProcess,
  videoId: string,
  type: string,
  which: 'started' | 'done',
): Promise<NodeLogLine[]> {
  const lines = nodeJobLines[type]!;
  return (await readFile(node.logFile, 'utf8'))
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as NodeLogLine)
    .filter(
      (line) => line.msg === lines[which] && line.jobId?.startsWith(videoId) && (!lines.job || line.job === lines.job),
    );
}

/**
 * `hung` stopped at `stoppedAt` holding the video's `types`: each starts on `other` once the
 * registry stops counting on `hung`. The video is ready, every frame, within a minute of the stop;
 * then `hung` runs again (SIGCONT; once back it may take new work, so it stays stopped until the
 * video is ready, to tell its late answers from that): what it was sent goes nowhere, each job is
 * done once, on `other`. Answers the seconds from the stop to each job starting on `other`.
 */
async function assertHangCostsSeconds(
  videoId: string,
  clip: Clip,
  {
    hung,
    other,
    stoppedAt,
    types,
  }: { hung: FarmNodeProcess; other: FarmNodeProcess; stoppedAt: number; types: string[] },
): Promise<Record<string, number>> {
  const moved: Record<string, number> = {};
  for (const type of types) {
    const [started] = await waitFor(
      `${type} of ${videoId} to start on ${other.name}`,
      async () => {
        const lines = await jobLines(other, videoId, type, 'started');
        return lines.length > 0 ? lines : undefined;
      },
      { timeoutMs: stoppedAt + 60_000 - Date.now(), intervalMs: 100 },
    );
    moved[type] = (started!.time - stoppedAt) / 1000;
    // The registry's sweep moved it (the timeout, plus at most half of it for the sweep to come by),
    // not the call's own deadline (2 minutes for a probe or a thumbnail, 14 for a storyboard).
    assert.ok(moved[type] < (2.5 * heartbeatTimeoutMs) / 1000, `${type} moved ${moved[type]} s after the stop`);
  }
  await assertReadyAfterRetries(videoId, clip, types);
  assert.ok(Date.now() - stoppedAt < 60_000, `ready ${(Date.now() - stoppedAt) / 1000} s after the stop`);
  hung.process.resume();
  const resumedAt = Date.now();
  // Back, the hung node reads what it was sent and hears it was cancelled; it registers again once it heartbeats.
  await waitFor(
    `${hung.name} to register again`,
    async () =>
      (await readFile(hung.logFile, 'utf8'))
        .split('\n')
        .some(
          (line) =>
            line.startsWith('{') &&
            (JSON.parse(line) as NodeLogLine).msg === 're-registered' &&
            (JSON.parse(line) as NodeLogLine).time >= resumedAt,
        )
        ? true
        : undefined,
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  for (const type of types) {
    assert.equal(
      (await jobLines(hung, videoId, type, 'done')).length,
      0,
      `${type}: the hung node's late answer is not made`,
    );
    // Once per job (a video may have several of a kind: an audio track per audio setting).
    const done = (await jobLines(other, videoId, type, 'done')).map((line) => line.jobId);
    assert.ok(done.length > 0, `${type}: done`);
    assert.deepEqual(done, [...new Set(done)], `${type}: each job done once`);
  }
  return moved;
}

test('the orchestrator killed while a probe runs: the video is ready within a minute of its restart', async () => {
  const { videoId } = await holdProbe(wholeClip);
  await killAndRestartOrchestrator();
  shortJobs.process.resume();
  encodes.process.resume();
  await assertReadyAfterRetries(videoId, wholeClip, ['probeSource']);
});

test('the node killed while a probe runs on it: the probe moves to the other node', async () => {
  const { videoId, nodeId } = await holdProbe(wholeClip);
  const victim = nodeId === shortJobs.nodeId ? shortJobs : encodes;
  (victim === shortJobs ? encodes : shortJobs).process.resume();
  const replacement = await killNode(victim);
  if (victim === shortJobs) shortJobs = replacement;
  else encodes = replacement;
  await assertReadyAfterRetries(videoId, wholeClip, ['probeSource']);
});

test('the orchestrator killed while a thumbnail, a storyboard and an audio track run: the video is ready within a minute of its restart', async () => {
  const { videoId } = await holdWorkAfterProbe(chunkedClip);
  await killAndRestartOrchestrator();
  await farm.kino.nodes.undrain(shortJobs.nodeId);
  encodes.process.resume();
  await assertReadyAfterRetries(videoId, chunkedClip, afterProbe);
});

test('the node killed while a thumbnail, a storyboard and an audio track run on it: they move to the other node', async () => {
  const { videoId } = await holdWorkAfterProbe(chunkedClip);
  await farm.kino.nodes.undrain(shortJobs.nodeId);
  encodes = await killNode(encodes);
  await assertReadyAfterRetries(videoId, chunkedClip, afterProbe);
});

test('the node hung (SIGSTOP) while a probe runs on it: the probe moves to the other node within the heartbeat timeout, the late answer ignored', async () => {
  await farm.kino.nodes.drain(encodes.nodeId);
  let stoppedAt = 0;
  const videoId = await farm.submitVideo(wholeClip.body, {
    beforeProcess: async () => {
      stoppedAt = await hangAfterHeartbeat(shortJobs);
    },
  });
  assert.equal((await running(videoId, 'probeSource')).nodeId, shortJobs.nodeId);
  await farm.kino.nodes.undrain(encodes.nodeId);
  const moved = await assertHangCostsSeconds(videoId, wholeClip, {
    hung: shortJobs,
    other: encodes,
    stoppedAt,
    types: ['probeSource'],
  });
  console.log(`hang: seconds from SIGSTOP to the job starting on another node: ${JSON.stringify(moved)}`);
});

test('the node hung (SIGSTOP) while a thumbnail, a storyboard and an audio track run on it: each moves to the other node within the heartbeat timeout, the late answers ignored', async () => {
  const { videoId, stoppedAt } = await holdWorkAfterProbe(chunkedClip);
  await farm.kino.nodes.undrain(shortJobs.nodeId);
  const moved = await assertHangCostsSeconds(videoId, chunkedClip, {
    hung: encodes,
    other: shortJobs,
    stoppedAt,
    types: afterProbe,
  });
  console.log(`hang: seconds from SIGSTOP to the job starting on another node: ${JSON.stringify(moved)}`);
});

test('the orchestrator killed while storage housekeeping runs (the master playlist): the video is ready within a minute of its restart', async () => {
  // As soon as a node takes the encode (seconds before it is done), the orchestrator hangs; the node
  // finishes, uploads and answers, and storage hangs before the orchestrator hears of it: the
  // activity after the encode, the master playlist, then waits on storage. The encode goes to the
  // two-slot node in an idle farm; after the hang tests a full run once saw it on neither within a
  // minute (cause not known: the wait now names what each node ran). Which node takes it does not
  // matter here.
  const videoId = await farm.submitVideo(wholeClip.body);
  const encodeOnNode = async () => {
    for (const node of [encodes, shortJobs]) {
      const job = (await nodeJobs(node)).find((j) => j.jobId.startsWith(videoId));
      if (job) return job;
    }
    return undefined;
  };
  await waitFor('a node to take the encode', encodeOnNode, { timeoutMs: 60_000, intervalMs: 20 }).catch(
    async (error: unknown) => {
      const ran = await Promise.all(
        [encodes, shortJobs].map(async (n) => `${n.name}: ${JSON.stringify((await nodeJobs(n)).slice(-3))}`),
      );
      throw new Error(`${(error as Error).message}; the nodes ran ${ran.join('; ')}`);
    },
  );
  const orchestrator = farm.orchestrator;
  orchestrator.pause();
  await waitFor('the encode to be done on its node', async () => ((await encodeOnNode())?.endedAt ? true : undefined), {
    timeoutMs: 15_000,
    intervalMs: 100,
  });
  const storage = farm.launcher.process('s3');
  storage.pause();
  try {
    orchestrator.resume();
    await running(videoId, 'writeMasterPlaylist', { onNode: false });
    await orchestrator.kill9();
  } finally {
    storage.resume();
  }
  farm.orchestrator = await farm.startOrchestrator();
  await assertReadyAfterRetries(videoId, wholeClip, ['writeMasterPlaylist']);
});

const run = promisify(execFile);

/** A stored object's text, or undefined while it is not stored. */
async function storedText(key: string): Promise<string | undefined> {
  return (await farm.storage.get(key))?.toString('utf8');
}

/** The media seconds a live playlist lists: its whole segments and the parts of the one being made. */
function listedSeconds(playlist: string): number {
  const lines = playlist.split('\n');
  const lastSegment = lines.findLastIndex((line) => line !== '' && !line.startsWith('#'));
  const whole = lines.filter((l) => l.startsWith('#EXTINF:')).map((l) => Number.parseFloat(l.slice(8)));
  const open = lines
    .slice(lastSegment + 1)
    .flatMap((l) => /^#EXT-X-PART:DURATION=([\d.]+)/.exec(l)?.slice(1) ?? [])
    .map(Number);
  return [...whole, ...open].reduce((sum, s) => sum + s, 0);
}

/** A process and every process under it, killed with SIGKILL: a host lost with its node and the node's ffmpeg. */
async function killWithChildren(node: FarmNodeProcess): Promise<void> {
  // Stopped first: the node must not see its ffmpeg die and answer for it (a lost host answers nothing).
  node.process.pause();
  const { stdout } = await run('ps', ['-eo', 'pid=,ppid=']);
  const parents = new Map(
    stdout
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]),
  );
  const root = node.process.child.pid!;
  const under = (pid: number): boolean => pid === root || (parents.has(pid) && pid > 1 && under(parents.get(pid)!));
  for (const pid of parents.keys()) if (pid !== root && under(pid)) process.kill(pid, 'SIGKILL');
  await node.process.kill9();
}

/** When the playlist at `key` first lists a part after its `count`th discontinuity. */
async function partAfterGap(key: string, count: number): Promise<number> {
  return waitFor(
    `a part after discontinuity ${count}`,
    async () => {
      const text = (await storedText(key)) ?? '';
      const gaps = text.split('#EXT-X-DISCONTINUITY');
      return gaps.length > count && gaps.at(-1)!.includes('#EXT-X-PART:') ? Date.now() : undefined;
    },
    { timeoutMs: 40_000, intervalMs: 50 },
  );
}

test('a broadcast whose node is killed, then whose orchestrator is: taken over each time after a discontinuity, everything else recorded', async () => {
  const stream = await farm.kino.liveStreams.create(farm.orgId, farm.envId, {
    name: 'takeover',
    latency: 'low',
    allowPublicAccess: true,
    reconnectWindowSeconds: 0,
  });
  // Long enough for both losses and parts after the second (the orchestrator's comes back after the heartbeat's 10 s).
  const seconds = 36;
  const publishedAt = Date.now();
  const publishing = publishTestsrc(`${stream.ingest.rtmp}/${stream.streamKey}`, seconds, { size: '320x180' });
  const videoId = await waitFor(
    'the broadcast to start',
    async () => (await getLiveStream(farm.db, stream.liveStreamId))?.active_video_id ?? undefined,
    { timeoutMs: 15_000, intervalMs: 100 },
  );
  // Killed once the broadcast plays (its master written: every rung lists a whole segment).
  const master = await waitFor('the broadcast to play', () => storedText(objectKeys.master(videoId)), {
    timeoutMs: 30_000,
    intervalMs: 100,
  });
  const rung = master
    .split('\n')
    .find((line) => line && !line.startsWith('#'))!
    .split('/')[0]!;
  const playlistKey = `${objectKeys.hlsPrefix(videoId)}${rung}/${hlsPlaylistName}`;
  const { nodeId } = await running(videoId, 'encodeLive');
  const victim = nodeId === shortJobs.nodeId ? shortJobs : encodes;
  const storedAtNodeKill = listedSeconds((await storedText(playlistKey))!);
  const nodeKilledAt = Date.now();
  await killWithChildren(victim);
  // Playback resumes: a part listed after the discontinuity, made by the other node.
  const nodeResumedAt = await partAfterGap(playlistKey, 1);
  // Measured, not asserted (a shared machine's wall clock): the goal is 5 s.
  console.log(`takeover: ${(nodeResumedAt - nodeKilledAt) / 1000} s from the node's kill to a part listed after it`);
  const replacement = await farm.startNode(`${victim.name}-${++replacements}`, { slots: victim === encodes ? 2 : 1 });
  if (victim === shortJobs) shortJobs = replacement;
  else encodes = replacement;

  // The orchestrator holding the call killed: the call's heartbeat stops, and at its timeout the
  // restarted orchestrator takes the broadcast over the same way.
  const storedAtOrchestratorKill = listedSeconds((await storedText(playlistKey))!);
  const orchestratorKilledAt = Date.now();
  await killAndRestartOrchestrator();
  const orchestratorResumedAt = await partAfterGap(playlistKey, 2);
  console.log(
    `takeover: ${(orchestratorResumedAt - orchestratorKilledAt) / 1000} s from the orchestrator's kill to a part listed after it`,
  );

  const published = await publishing;
  assert.equal(published.exitCode, 0, `the publisher never noticed: ${published.stderr}`);
  await farm.waitForStatus(videoId, 'ready', 60_000);
  const recording = (await storedText(playlistKey))!;
  assert.match(recording, /#EXT-X-ENDLIST\n$/);
  const gaps = recording.split('#EXT-X-DISCONTINUITY');
  assert.equal(gaps.length, 3, `two discontinuities:\n${recording}`);
  const segments = recording.split('\n').filter((line) => line && !line.startsWith('#'));
  assert.deepEqual(
    segments,
    segments.map((_, n) => `seg-${String(n).padStart(5, '0')}.m4s`),
    'segments numbered on',
  );
  const files = await Promise.all(
    ['init.mp4', ...segments].map(
      async (name) => (await farm.storage.get(`${objectKeys.hlsPrefix(videoId)}${rung}/${name}`))!,
    ),
  );
  const whole = join(workDir, `${videoId}-recording.mp4`);
  await writeFile(whole, Buffer.concat(files));
  const { stdout } = await run('ffprobe', [
    ...['-v', 'error', '-count_frames', '-select_streams', 'v:0'],
    ...['-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', whole],
  ]);
  const recorded = Number(stdout.trim());
  // One timeline across the gaps (each new node's times start past where the recording ends): read
  // as one file, every frame the recording lists decodes, within a frame a takeover (seen once: 719
  // of the 720 listed; suspected, not proven: a new node's first part's length counting the sound's
  // lead before its first picture).
  const listedFrames = Math.round(listedSeconds(recording) * 30);
  assert.ok(
    recorded <= listedFrames && recorded >= listedFrames - (gaps.length - 1),
    `${recorded} frames decode of the ${listedFrames} the recording lists`,
  );
  // Nothing stored before a loss is lost: the open segment left closed as it was.
  const beforeFirst = listedSeconds(gaps[0]!);
  assert.ok(
    beforeFirst >= storedAtNodeKill - 1e-3,
    `${beforeFirst} s before the gap, ${storedAtNodeKill} s stored at the node's kill`,
  );
  const beforeSecond = listedSeconds(gaps[0]! + gaps[1]!);
  assert.ok(
    beforeSecond >= storedAtOrchestratorKill - 1e-3,
    `${beforeSecond} s before the second gap, ${storedAtOrchestratorKill} s stored at the orchestrator's kill`,
  );
  // Every frame but the gaps': each, those published after the last one stored at its loss, up to
  // the moment the next part was listed (its first frame was published before that).
  const gapSeconds =
    (nodeResumedAt - publishedAt) / 1000 -
    storedAtNodeKill +
    (orchestratorResumedAt - publishedAt) / 1000 -
    storedAtOrchestratorKill;
  const publishedFrames = seconds * 30;
  console.log(
    `takeover: ${recorded} of ${publishedFrames} frames recorded; the gaps at most ${gapSeconds.toFixed(2)} s together`,
  );
  assert.ok(recorded < publishedFrames, `gaps: ${recorded} of ${publishedFrames} frames`);
  assert.ok(
    recorded >= publishedFrames - Math.ceil(gapSeconds * 30),
    `${recorded} of ${publishedFrames} frames: more than the gaps' ${gapSeconds.toFixed(2)} s lost`,
  );
});
