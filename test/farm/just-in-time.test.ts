// Just-in-time segments on real processes (docs/decisions/just-in-time.md): a video turns `ready`
// with its first segment, plays through delivery from that moment (delivery asks the farm for each
// segment it lacks, which goes ahead of the background runs), and ends with the same ladder a
// complete encode makes: every frame, the planned playlists confirmed by the segments made, each
// segment made once. A source whose tail is damaged turns a ready video `failed`, with the reason
// and the failed webhook, and delivery stops answering its segments. A request for a segment of a
// background run already running un-nices that run's ffmpeg. Its first segment is made as three
// 2 s bootstrap segments (issue 55): `ready` after the first; the three are the 6 s segment's bytes,
// joined while the second run (2 to 18 s) goes on.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { waitFor } from '@kino/dev';
import { audioEncodingOf, hlsBootstrapPattern, objectKeys } from '@kino/proto/contract';
import { audioTrackArgs, probeMedia, runFfmpeg, threadNiceness } from '@kino/ffmpeg';
import {
  assertRunsOn,
  countDecodedFrames,
  countFramesInFile,
  makeClip,
  packetHashes,
  packetTimes,
} from '@kino/test/support/media';
import {
  nodeJobs,
  registerWebhook,
  startFarm,
  startWebhookReceiver,
  type Farm,
  type FarmNodeProcess,
  type WebhookReceiver,
} from './farm.ts';

const run = promisify(execFile);

let farm: Farm;
let node: FarmNodeProcess;
let receiver: WebhookReceiver;
let workDir: string;
let clipPath: string;
let sourceFrames: number;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-farm-jit-'));
  [farm, clipPath, receiver] = await Promise.all([
    startFarm({ playback: true, orchestratorEnv: { JUST_IN_TIME: 'true' } }),
    // 854x480 on `standard`: 360p and 480p; 40 s: the first 2 s, 2 to 18 s (the rest of segment 0, then
    // 1-2), then runs of 12 s (3-4, 5-6).
    makeClip({ seconds: 40, width: 854, height: 480, fps: 30, audio: true, path: join(workDir, 'clip.mp4') }),
    startWebhookReceiver(),
  ]);
  receiver.secret = await registerWebhook(farm, receiver.url);
  sourceFrames = await countFramesInFile(clipPath);
  // One slot and one thread: the background runs queue behind each other, so a request can overtake them.
  node = await farm.startNode('a', { slots: 1, threads: 1 });
});

afterAll(async () => {
  await farm?.stop();
  await receiver?.close();
  await rm(workDir, { recursive: true, force: true });
});

async function videoRow(videoId: string) {
  return farm.db
    .selectFrom('videos')
    .select(['status', 'segments_pending', 'failure_reason'])
    .where('id', '=', videoId)
    .executeTakeFirstOrThrow();
}

async function storedText(key: string): Promise<string | undefined> {
  return (await farm.storage.get(key))?.toString('utf8');
}

function durationsOf(playlist: string): number[] {
  return [...playlist.matchAll(/^#EXTINF:([\d.]+),/gm)].map((m) => Number(m[1]));
}

function bandwidthsOf(master: string): Record<string, { peak: number; average: number }> {
  return Object.fromEntries(
    [...master.matchAll(/BANDWIDTH=(\d+),AVERAGE-BANDWIDTH=(\d+).*\n(\w+)\//g)].map((m) => [
      m[3]!,
      { peak: Number(m[1]), average: Number(m[2]) },
    ]),
  );
}

test('ready with its first segment, playable through delivery at once (each segment it lacks made on request), then the complete ladder; no segment made twice', async () => {
  const videoId = await farm.submitVideo(await readFile(clipPath), { quality: 'standard', compressionRatio: 'medium' });
  await farm.waitForStatus(videoId, 'ready', 180_000);
  assert.equal((await videoRow(videoId)).segments_pending, true, 'ready before the ladder is complete');
  const plannedMaster = (await storedText(objectKeys.master(videoId)))!;
  const planned = Object.fromEntries(
    await Promise.all(
      ['360p', '480p'].map(
        async (key) => [key, (await storedText(objectKeys.renditionPlaylist(videoId, key)))!] as const,
      ),
    ),
  );
  assert.deepEqual(durationsOf(planned['480p']!).length, 7, 'every segment is in the playlist from the start');
  // Ready with the first bootstrap segment (the first 2 s) of every rung; the rest of the first
  // segment follows. A viewer's request for one not made yet waits for it (segment 0's run).
  for (const key of ['360p', '480p'])
    assert.ok(await farm.storage.head(objectKeys.bootstrapSegment(videoId, key, 0)), `${key}: boot-0 is there`);
  const bootstrapParts = await Promise.all(
    [2, 1, 0].map(async (k) => {
      const response = await fetch(`${farm.deliveryUrl}/${videoId}/480p/boot-${k}.m4s?bootstrap=true`);
      assert.equal(response.status, 200, `boot-${k}.m4s`);
      return Buffer.from(await response.arrayBuffer());
    }),
  );
  assert.equal(await farm.storage.head(objectKeys.segment(videoId, '480p', 6)), undefined, 'the last is not made yet');
  // Without `bootstrap` the first segment is the 6 s one (delivery waits for it), byte for byte its
  // bootstrap segments in order, joined once they are stored: the second run, which goes on through
  // segments 1 and 2, is still running.
  const first = await fetch(`${farm.deliveryUrl}/${videoId}/480p/seg-00000.m4s`);
  assert.equal((await bootstrapRestJob(videoId)).endedAt, undefined, 'seg-00000 before the second run ended');
  assert.ok(
    Buffer.from(await first.arrayBuffer()).equals(Buffer.concat(bootstrapParts.reverse())),
    'seg-00000 = boot-0..2',
  );
  const bootstrapPlaylist = await (await fetch(`${farm.deliveryUrl}/${videoId}/480p.m3u8?bootstrap=true`)).text();
  assert.match(
    bootstrapPlaylist,
    /^#EXTINF:2\.000000,\n480p\/boot-0\.m4s\n#EXTINF:2\.000000,\n480p\/boot-1\.m4s\n#EXTINF:2\.000000,\n480p\/boot-2\.m4s\n#EXTINF:6\.000000,\n480p\/seg-00001\.m4s$/m,
  );
  assert.doesNotMatch(await (await fetch(`${farm.deliveryUrl}/${videoId}/480p.m3u8`)).text(), /boot-/);
  assert.match(
    await (await fetch(`${farm.deliveryUrl}/${videoId}/master.m3u8?bootstrap=true`)).text(),
    /^480p\.m3u8\?bootstrap=true$/m,
    'the master carries bootstrap onto its variants',
  );
  assert.equal((await fetch(`${farm.deliveryUrl}/${videoId}/master.m3u8?bootstrap=maybe`)).status, 400);

  // A viewer seeks to the end: the run of segments 5 and 6 is made ahead of the background runs.
  const last = await fetch(`${farm.deliveryUrl}/${videoId}/480p/seg-00006.m4s`);
  assert.equal(last.status, 200);
  assert.ok((await last.arrayBuffer()).byteLength > 0);
  assert.equal(
    await farm.storage.head(objectKeys.segment(videoId, '480p', 3)),
    undefined,
    'the background had not reached the middle yet',
  );
  // Ready before the rest of the first segment was made: the second bootstrap run ended after it.
  const readyAt = (
    await farm.db.selectFrom('videos').select('ready_at').where('id', '=', videoId).executeTakeFirstOrThrow()
  ).ready_at!.getTime();
  const restEnded = await waitFor(
    'the end of the second bootstrap run in the node log',
    async () => (await bootstrapRestJob(videoId)).endedAt,
  );
  assert.ok(restEnded > readyAt, `ready at ${readyAt}, the rest of the first segment made at ${restEnded}`);

  // A player from the start: every frame decodes through delivery while segments are still being made.
  assert.equal(await countDecodedFrames(`${farm.deliveryUrl}/${videoId}/master.m3u8`), sourceFrames);
  assert.equal(await countDecodedFrames(`${farm.deliveryUrl}/${videoId}/master.m3u8?bootstrap=true`), sourceFrames);

  await waitFor('the ladder complete', async () => !(await videoRow(videoId)).segments_pending, {
    timeoutMs: 180_000,
    intervalMs: 250,
  });
  const dir = join(workDir, videoId);
  await farm.downloadVideo(videoId, dir);
  assert.equal(
    await countDecodedFrames(join(dir, 'hls', 'master.m3u8')),
    sourceFrames,
    'the stored ladder decodes every frame',
  );
  const track = join(workDir, `${videoId}-track.mp4`);
  // The ladder's audio: AAC at 128 kbit/s, in the source's one channel (a sine tone).
  await runFfmpeg(
    audioTrackArgs({
      input: clipPath,
      audio: { encoding: audioEncodingOf.aac, bitrateKbps: 128, channels: 1 },
      output: track,
      // Padded to the video's duration, as the node pads it.
      durationSeconds: (await probeMedia(clipPath)).durationSeconds,
    }),
  );
  const trackPackets = await packetHashes(track, 'a:0');
  for (const key of ['360p', '480p']) {
    // Packet timestamps run on across every join, and the audio is one AAC encode of the source's
    // whole audio, packet for packet (the first run's audio head, then the track's parts): the first
    // run's own AAC encode cut at 6 s ended in a short packet, and Chromium dropped the next GOP.
    const playlistPath = join(dir, 'hls', key, 'playlist.m3u8');
    assertRunsOn(await packetTimes(playlistPath, 'v:0'), 1 / 30, `${key} video`);
    assertRunsOn(await packetTimes(playlistPath, 'a:0'), 1024 / 48_000, `${key} audio`);
    const stored = await packetHashes(playlistPath, 'a:0');
    const differs = stored.findIndex((hash, k) => hash !== trackPackets[k]);
    assert.deepEqual(
      [stored.length, differs],
      [trackPackets.length, -1],
      `${key} audio: ${stored.length} packets against the track's ${trackPackets.length}, first differing at ${differs}`,
    );
    const made = durationsOf(await readFile(join(dir, 'hls', key, 'playlist.m3u8'), 'utf8'));
    const plannedDurations = durationsOf(planned[key]!);
    assert.equal(made.length, plannedDurations.length, `${key}: as many segments as planned`);
    made.forEach((d, k) =>
      assert.ok(
        Math.abs(d - plannedDurations[k]!) < 1 / 30 + 1e-3,
        `${key} segment ${k}: planned ${plannedDurations[k]} s, made ${d} s`,
      ),
    );
  }
  // The bootstrap segments' boundaries are the same frames in every rung: 60 frames each at 30 fps.
  const bootstrapDurations = new Set<string>();
  for (const key of ['360p', '480p']) {
    const bootstrapMade = await readFile(join(dir, 'hls', key, 'bootstrap.m3u8'), 'utf8');
    bootstrapDurations.add(JSON.stringify(durationsOf(bootstrapMade).slice(0, 3)));
    const init = await readFile(join(dir, 'hls', key, 'init.mp4'));
    const frames: number[] = [];
    for (const k of [0, 1, 2]) {
      const alone = join(workDir, `${videoId}-${key}-boot-${k}.mp4`);
      await writeFile(alone, Buffer.concat([init, await readFile(join(dir, 'hls', key, `boot-${k}.m4s`))]));
      frames.push(await countFramesInFile(alone));
    }
    assert.deepEqual(frames, [60, 60, 60], `${key}: the frames of boot-0..2`);
  }
  assert.equal(
    bootstrapDurations.size,
    1,
    `the same bootstrap cuts in every rung: ${[...bootstrapDurations].join(' ')}`,
  );
  // The declared BANDWIDTH never undersold a segment: at least the measured peak.
  const declared = bandwidthsOf(plannedMaster);
  const measured = bandwidthsOf((await storedText(objectKeys.master(videoId)))!);
  for (const key of ['360p', '480p'])
    assert.ok(
      declared[key]!.peak >= measured[key]!.peak,
      `${key}: declared ${declared[key]!.peak} against a measured peak of ${measured[key]!.peak}`,
    );

  // One activity per run and one node job each: nothing was encoded twice.
  const scheduled = await farm.scheduledActivities(videoId);
  // The first 2 s, then 2 to 18 s (the rest of the first segment and segments 1 and 2), then runs of
  // 12 s: as many runs as without bootstrap segments.
  assert.equal(scheduled.encodeChunk, 4);
  assert.equal(scheduled.joinBootstrapSegments, 1);
  assert.equal(scheduled.encodeAudioTrack, 1);
  const starts = (await nodeJobs(node)).filter((j) => j.jobId.startsWith(videoId));
  assert.equal(new Set(starts.map((j) => j.jobId)).size, starts.length, 'each encode ran once');
  const completed = receiver.received.filter(
    (w) => w.payload.videoId === videoId && w.payload.event === 'video.processing.completed',
  );
  assert.equal(completed.length, 1, 'one completed webhook, when it became playable');
});

/** The node's job that made the rest of `videoId`'s first segment (the window from 2 s, as bootstrap segments). */
async function bootstrapRestJob(videoId: string) {
  const lines = (await readFile(node.logFile, 'utf8')).split('\n').filter((line) => line.startsWith('{'));
  const starting = lines
    .map(
      (line) =>
        JSON.parse(line) as { msg?: string; jobId?: string; chunk?: { startSeconds?: number; bootstrap?: boolean } },
    )
    .find(
      (e) =>
        e.msg === 'encode starting' && e.jobId?.startsWith(videoId) && e.chunk?.bootstrap && e.chunk.startSeconds === 2,
    );
  assert.ok(starting, 'the second bootstrap run ran');
  const job = (await nodeJobs(node)).find((j) => j.jobId === starting.jobId);
  assert.ok(job, 'its job');
  return job;
}

/**
 * The ffmpeg processes on this machine encoding a run of `videoId` that starts at `firstSegment` (its
 * job directory names the video); not a bootstrap run, whose pieces' numbering starts at 1 and which
 * runs niced beside the first run.
 */
async function runFfmpegPids(videoId: string, firstSegment: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!(await readlink(`/proc/${entry}/cwd`)).includes(videoId)) continue;
      const args = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).split('\0');
      const start = args.indexOf('-start_number');
      const bootstrap = args.some((arg) => arg.endsWith(hlsBootstrapPattern));
      if (/ffmpeg$/.test(args[0] ?? '') && !bootstrap && start > 0 && args[start + 1] === String(firstSegment))
        pids.push(Number(entry));
    } catch {
      // Not ours to read, or gone meanwhile.
    }
  }
  return pids;
}

test("a viewer who asks for a segment of a background run already running: that run's ffmpeg leaves nice 10 for 0, every thread of it; a short video sent meanwhile goes ahead of the runs still queued", async () => {
  const short = makeClip({ seconds: 5, width: 640, height: 360, fps: 30, path: join(workDir, 'short.mp4') });
  const videoId = await farm.submitVideo(await readFile(clipPath), { quality: 'standard', compressionRatio: 'medium' });
  await farm.waitForStatus(videoId, 'ready', 180_000);
  // The first background run (segments 3 and 4; the run of segments 1 and 2 was raised with the
  // first segment's) on the node's one slot, niced.
  const pid = await waitFor(
    "the first background run's ffmpeg, niced",
    async () => {
      for (const candidate of await runFfmpegPids(videoId, 3)) {
        const values = threadNiceness(candidate);
        if (values.length > 0 && values.every((v) => v === 10)) return candidate;
      }
      return undefined;
    },
    { timeoutMs: 120_000, intervalMs: 50 },
  );
  assert.equal(
    await farm.storage.head(objectKeys.segment(videoId, '480p', 4)),
    undefined,
    'its last segment is not made yet',
  );

  const segment = fetch(`${farm.deliveryUrl}/${videoId}/480p/seg-00004.m4s`);
  await waitFor(
    "every thread of the run's ffmpeg at nice 0",
    async () => {
      const values = threadNiceness(pid);
      assert.ok(values.length > 0, 'the run ended before it was raised');
      return values.every((v) => v === 0);
    },
    { timeoutMs: 10_000, intervalMs: 50 },
  );
  const response = await segment;
  assert.equal(response.status, 200);
  assert.ok((await response.arrayBuffer()).byteLength > 0);

  // A video of one run (5 s), sent while this one's background runs hold the node's one slot: its
  // run is urgent, as a longer video's first run is, so it starts at once in the node's demand slot
  // beside the running run instead of waiting for the slot.
  const shortId = await farm.submitVideo(await readFile(await short), { quality: 'standard' });
  await farm.waitForStatus(shortId, 'ready', 180_000);
  await waitFor('the ladder complete', async () => !(await videoRow(videoId)).segments_pending, {
    timeoutMs: 180_000,
    intervalMs: 250,
  });
  const jobs = await nodeJobs(node);
  const shortRun = jobs.find((job) => job.jobId.startsWith(`${shortId}-`));
  assert.ok(shortRun, 'the short video ran on the node');
  const alongside = jobs.find(
    (job) =>
      job.jobId.startsWith(`${videoId}-`) &&
      job.startedAt < shortRun.startedAt &&
      (job.endedAt ?? Infinity) > shortRun.startedAt,
  );
  assert.ok(
    alongside,
    `the short video's run started while a run of the longer one was running: ${JSON.stringify(jobs)}`,
  );
});

test('a source whose tail is damaged: ready, then failed with the reason and the failed webhook; delivery answers an error for the segments it cannot make', async () => {
  // The index at the front (as phones and editors write it), the last 40 % of the bytes cut off.
  const faststart = join(workDir, 'faststart.mp4');
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-i',
    clipPath,
    '-c',
    'copy',
    '-movflags',
    '+faststart',
    faststart,
  ]);
  const whole = await readFile(faststart);
  const truncated = join(workDir, 'truncated.mp4');
  await writeFile(truncated, whole.subarray(0, Math.floor(whole.length * 0.6)));

  const videoId = await farm.submitVideo(await readFile(truncated), { quality: 'standard' });
  await farm.waitForStatus(videoId, 'ready', 180_000);
  const failed = await farm.waitForStatus(videoId, 'failed', 180_000);
  assert.match(failed.failureReason ?? '', /truncated or damaged/);
  const hook = await waitFor(
    'the failed webhook',
    () => receiver.received.find((w) => w.payload.videoId === videoId && w.payload.event === 'video.processing.failed'),
    { timeoutMs: 60_000 },
  );
  assert.match(JSON.stringify(hook.payload.data), /truncated or damaged/);
  const row = await videoRow(videoId);
  assert.equal(row.segments_pending, false);
  for (const path of ['master.m3u8', '480p/seg-00006.m4s']) {
    const response = await fetch(`${farm.deliveryUrl}/${videoId}/${path}`);
    assert.ok(response.status >= 400, `${path}: ${response.status}`);
  }
});
