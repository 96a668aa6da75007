// Chunked encoding on real processes (docs/architecture.md#chunked-encoding): a video longer than
// a chunk is encoded as its audio track and one activity per chunk over every node, and plays like a
// whole-file encode: every frame of every rendition, 6 s segments numbered for the whole video, one
// init segment, packet timestamps that run on across every join. A node killed mid-video costs only
// the chunks it had in flight.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { waitFor } from '@kino/dev';
import { objectKeys } from '@kino/proto/contract';
import {
  assertRunsOn,
  countDecodedFrames,
  countFramesInFile,
  makeClip,
  streamField,
  packetTimes,
} from '@kino/test/support/media';
import { nodeJobs, startFarm, type Farm, type FarmNodeProcess } from './farm.ts';

const run = promisify(execFile);

let farm: Farm;
let workDir: string;
let clipPath: string;
let sourceFrames: number;
const nodes: Record<string, FarmNodeProcess> = {};

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-farm-chunks-'));
  [farm, clipPath] = await Promise.all([
    // 6 s chunks: a 20 s clip is 3 chunks (0-6, 6-12, 12-20 s) and 4 segments.
    startFarm({ orchestratorEnv: { ENCODE_CHUNK_SECONDS: '6' } }),
    // 854x480 on `standard`: two renditions (360p, 480p), made by each chunk from one decode.
    makeClip({ seconds: 20, width: 854, height: 480, fps: 30, audio: true, path: join(workDir, 'clip.mp4') }),
  ]);
  sourceFrames = await countFramesInFile(clipPath);
  [nodes.a, nodes.b] = await Promise.all([farm.startNode('a', { threads: 1 }), farm.startNode('b', { threads: 1 })]);
});

afterAll(async () => {
  await farm?.stop();
  await rm(workDir, { recursive: true, force: true });
});

async function assertPlaysLikeAWholeFileEncode(videoId: string): Promise<void> {
  const dir = join(workDir, videoId);
  const keys = await farm.downloadVideo(videoId, dir);
  assert.equal(await countDecodedFrames(join(dir, 'hls', 'master.m3u8')), sourceFrames);
  for (const rendition of ['360p', '480p']) {
    const playlistPath = join(dir, 'hls', rendition, 'playlist.m3u8');
    assert.equal(await countDecodedFrames(playlistPath), sourceFrames, `${rendition} decodes every frame`);
    const playlist = await readFile(playlistPath, 'utf8');
    assert.doesNotMatch(playlist, /DISCONTINUITY/);
    const durations = [...playlist.matchAll(/^#EXTINF:([\d.]+),/gm)].map((m) => Number(m[1]));
    assert.deepEqual(durations, [6, 6, 6, 2], `${rendition}: 6 s segments, the last shorter`);
    // One init segment serves every chunk; the segments are numbered for the whole video.
    const files = keys
      .filter((key) => key.startsWith(`${objectKeys.hlsPrefix(videoId)}${rendition}/`))
      .map((key) => key.slice(key.lastIndexOf('/') + 1));
    assert.deepEqual(files.sort(), [
      'init.mp4',
      'playlist.m3u8',
      'seg-00000.m4s',
      'seg-00001.m4s',
      'seg-00002.m4s',
      'seg-00003.m4s',
    ]);
    // Packet timestamps run on across the joins at 6 and 12 s: one frame (1/30 s), one AAC frame (1024 samples at 48 kHz).
    const video = await packetTimes(playlistPath, 'v:0');
    assert.equal(video.length, sourceFrames);
    assertRunsOn(video, 1 / 30, `${rendition} video`);
    const audio = await packetTimes(playlistPath, 'a:0');
    assertRunsOn(audio, 1024 / 48_000, `${rendition} audio`);
    assert.ok(
      Math.abs(audio.at(-1)! + 1024 / 48_000 - 20) < 0.05,
      `${rendition} audio runs to the end (${audio.at(-1)} s)`,
    );
  }
  assert.deepEqual(
    keys.filter((key) => key.startsWith(objectKeys.workPrefix(videoId))),
    [],
    "the chunks' work files are gone once ready",
  );
}

test('a 20 s video in 6 s chunks: the audio track once, one activity per chunk, and it plays like a whole-file encode', async () => {
  const videoId = await farm.submitVideo(await readFile(clipPath), { quality: 'standard' });
  await farm.waitForStatus(videoId, 'ready', 180_000);
  await assertPlaysLikeAWholeFileEncode(videoId);

  const scheduled = await farm.scheduledActivities(videoId);
  assert.equal(scheduled.encodeChunk, 3);
  assert.equal(scheduled.encodeAudioTrack, 1);
  assert.equal(scheduled.encodeRenditions, undefined, 'no whole-file encode');
  const details = await farm.kino.videos.get(farm.orgId, videoId);
  assert.ok(Math.abs(details.durationSeconds - 20) < 0.1);
  assert.deepEqual(await farm.db.selectFrom('node_leases').select('id').execute(), []);
});

test('kill -9 a node with chunks in flight: only those chunks are encoded twice, and the video plays every frame', async () => {
  // One thread and two renditions: each chunk runs for seconds on `medium`, long enough to be caught
  // in flight (a slower preset only makes the test longer).
  const videoId = await farm.submitVideo(await readFile(clipPath), { quality: 'standard', compressionRatio: 'medium' });
  // Wait until a chunk has finished somewhere (the video is under way) and a node has one running.
  const victim = await waitFor(
    'a node with a chunk in flight after a first chunk finished',
    async () => {
      const jobs = await Promise.all(
        Object.values(nodes).map(async (node) => ({
          node,
          jobs: (await nodeJobs(node)).filter((j) => j.jobId.startsWith(videoId)),
        })),
      );
      const finished = jobs.flatMap((n) => n.jobs).filter((j) => j.endedAt !== undefined).length;
      return finished >= 2 ? jobs.find((n) => n.jobs.some((j) => j.endedAt === undefined))?.node : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 100 },
  );
  await victim.process.kill9();
  const inFlight = new Set(
    (await nodeJobs(victim)).filter((j) => j.jobId.startsWith(videoId) && j.endedAt === undefined).map((j) => j.jobId),
  );
  assert.ok(inFlight.size > 0);

  await farm.waitForStatus(videoId, 'ready', 300_000);
  await assertPlaysLikeAWholeFileEncode(videoId);

  // Every encode (chunk or audio track) is one activity, one job id; count the nodes' starts of each.
  const starts = new Map<string, number>();
  for (const node of Object.values(nodes)) {
    for (const job of await nodeJobs(node))
      if (job.jobId.startsWith(videoId)) starts.set(job.jobId, (starts.get(job.jobId) ?? 0) + 1);
  }
  const encodedTwice = [...starts].filter(([, count]) => count > 1).map(([jobId]) => jobId);
  assert.deepEqual(
    encodedTwice.sort(),
    [...inFlight].sort(),
    'only the chunks in flight on the killed node were encoded again',
  );
  assert.ok([...starts.values()].every((count) => count <= 2));
  assert.equal(starts.size, 5, 'the audio track, 3 chunks and audio.m4a');
});

interface ChunkEncodeInput {
  recordName: string;
  renditions: { twoPass: boolean }[];
}

/** The chunk encodes a run of the video's workflow scheduled (their inputs), and whether each completed, from its history. */
async function chunkEncodes(
  videoId: string,
  runId?: string,
): Promise<{ input: ChunkEncodeInput; completed: boolean }[]> {
  const history = await farm.temporal.workflow.getHandle(`video:${videoId}`, runId).fetchHistory();
  const scheduled = new Map<string, { input: ChunkEncodeInput; completed: boolean }>();
  for (const event of history.events ?? []) {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (attributes?.activityType?.name === 'encodeChunk') {
      const input = JSON.parse(Buffer.from(attributes.input!.payloads![0]!.data!).toString('utf8')) as ChunkEncodeInput;
      scheduled.set(String(event.eventId), { input, completed: false });
    }
    const done = event.activityTaskCompletedEventAttributes;
    const chunk = done && scheduled.get(String(done.scheduledEventId));
    if (chunk) chunk.completed = true;
  }
  return [...scheduled.values()];
}

/** Record names of a run's chunk encodes: all it scheduled, and those it completed. */
async function chunkRecords(videoId: string, runId: string): Promise<{ scheduled: string[]; completed: string[] }> {
  const chunks = await chunkEncodes(videoId, runId);
  return {
    scheduled: chunks.map((c) => c.input.recordName).sort(),
    completed: chunks
      .filter((c) => c.completed)
      .map((c) => c.input.recordName)
      .sort(),
  };
}

test('retried after `failed` with unchanged parameters: the chunks finished before the failure are not encoded again', async () => {
  // One node with one slot: the chunks run one after another, so a source gone after the first
  // finished chunk fails a later one for sure.
  await Promise.all(Object.values(nodes).map((node) => node.process.kill9()));
  for (const name of Object.keys(nodes)) delete nodes[name];
  nodes.c = await farm.startNode('c', { threads: 1 });

  const body = await readFile(clipPath);
  const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, {
    filename: 'clip.mp4',
    fileSize: body.length,
    contentType: 'video/mp4',
  });
  await farm.kino.uploads.putFile(ticket, body, 'video/mp4');
  const { videoID: videoId } = await farm.kino.videos.process(farm.orgId, farm.envId, {
    storagePath: ticket.bucketPath,
    videoQuality: 'standard',
    allowPublicAccess: true,
    videoName: 'clip.mp4',
    // Seconds per chunk on one thread: the last chunk is still to come when the source goes.
    compressionRatio: 'medium',
  });
  const workflow = farm.temporal.workflow.getHandle(`video:${videoId}`);
  const firstRun = (await workflow.describe()).runId;
  await waitFor(
    'a first chunk encoded',
    async () => (await chunkRecords(videoId, firstRun)).completed.length > 0 || undefined,
    { timeoutMs: 180_000, intervalMs: 200 },
  );
  // The uploaded file vanishes mid-video: the next chunk cannot read it, and the video fails.
  await farm.storage.delete(ticket.bucketPath);
  await farm.waitForStatus(videoId, 'failed', 180_000);
  const first = await chunkRecords(videoId, firstRun);
  const allChunks = ['0-0', '0-1', '0-2'];
  assert.ok(
    first.completed.length > 0 && first.completed.length < allChunks.length,
    `some chunks finished before the failure, not all (${first.completed.join(', ')})`,
  );

  // The same file again at the same path, and a retry: only the chunks not finished are encoded.
  await farm.storage.put(ticket.bucketPath, body, 'video/mp4');
  await farm.kino.videos.retry(farm.orgId, videoId);
  await farm.waitForStatus(videoId, 'ready', 300_000);
  const secondRun = (await workflow.describe()).runId;
  assert.notEqual(secondRun, firstRun);
  const second = await chunkRecords(videoId, secondRun);
  assert.deepEqual(
    second.scheduled,
    allChunks.filter((name) => !first.completed.includes(name)),
    'the retry encodes only the chunks the failed run did not finish',
  );
  await assertPlaysLikeAWholeFileEncode(videoId);
});

/** The distinct HRD `cbr_flag` values the video stream's sequence headers carry, at every join (1: CBR). */
async function cbrFlags(playlist: string): Promise<number> {
  const { stderr } = await run(
    'ffmpeg',
    ['-hide_banner', '-i', playlist, '-map', '0:v:0', '-c', 'copy', '-bsf:v', 'trace_headers', '-f', 'null', '-'],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  const flags = new Set([...stderr.matchAll(/cbr_flag\[0\]\s+\S+ = (\d)/g)].map((m) => Number(m[1])));
  assert.equal(flags.size, 1, `one cbr_flag throughout (${[...flags].join(', ') || 'none'})`);
  return [...flags][0]!;
}

/** The video stream's mean bitrate in kbps over a playlist's joined segments, from its packet sizes. */
async function videoKbps(playlist: string, seconds: number): Promise<number> {
  const { stdout } = await run(
    'ffprobe',
    ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=size', '-of', 'csv=p=0', playlist],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const bytes = stdout
    .split('\n')
    .filter(Boolean)
    .reduce((sum, size) => sum + Number(size), 0);
  return (bytes * 8) / seconds / 1000;
}

test("the process request's options hold in chunks: two-pass VBR with MP3 at 15 fps, and CBR in 4:2:2 with AC-3", async () => {
  nodes.d = await farm.startNode('d');
  const body = await readFile(clipPath);
  const [twoPass, cbr] = await Promise.all([
    farm.submitVideo(body, { quality: 'standard', twoPassVBREncoding: true, audioCodec: 'mp3', maxFrameRate: 15 }),
    farm.submitVideo(body, {
      quality: 'standard',
      rateControlMode: 'constantBitrate',
      pixelFormat: 'yuv422p',
      audioCodec: 'ac3',
    }),
  ]);
  const cases = [
    { videoId: twoPass, fps: 15, audio: 'mp3', samplesPerFrame: 1152, pixelFormat: 'yuv420p' },
    { videoId: cbr, fps: 30, audio: 'ac3', samplesPerFrame: 1536, pixelFormat: 'yuv422p' },
  ];
  for (const { videoId, fps, audio, samplesPerFrame, pixelFormat } of cases) {
    await farm.waitForStatus(videoId, 'ready', 300_000);
    const details = await farm.kino.videos.get(farm.orgId, videoId);
    const dir = join(workDir, videoId);
    await farm.downloadVideo(videoId, dir);
    for (const encoding of details.encodings) {
      const playlistPath = join(dir, 'hls', encoding.key, 'playlist.m3u8');
      const what = `${videoId} ${encoding.key}`;
      assert.equal(await countDecodedFrames(playlistPath), 20 * fps, `${what} decodes every frame at ${fps} fps`);
      const playlist = await readFile(playlistPath, 'utf8');
      assert.doesNotMatch(playlist, /DISCONTINUITY/);
      assert.deepEqual(
        [...playlist.matchAll(/^#EXTINF:([\d.]+),/gm)].map((m) => Number(m[1])),
        [6, 6, 6, 2],
        `${what}: 6 s segments`,
      );
      assertRunsOn(await packetTimes(playlistPath, 'v:0'), 1 / fps, `${what} video`);
      assertRunsOn(await packetTimes(playlistPath, 'a:0'), samplesPerFrame / 48_000, `${what} audio`);
      assert.equal(await streamField(playlistPath, 'a:0', 'codec_name'), audio);
      assert.equal(await streamField(playlistPath, 'v:0', 'pix_fmt'), pixelFormat);
      if (videoId === cbr) {
        assert.equal(await cbrFlags(playlistPath), 1, `${what}: every chunk signals constant bitrate (HRD cbr_flag)`);
        const kbps = await videoKbps(playlistPath, 20);
        assert.ok(
          Math.abs(kbps / encoding.videoStreamBitrate - 1) <= 0.1,
          `${what}: CBR video at ${kbps.toFixed(0)} kbps against a ${encoding.videoStreamBitrate} kbps target`,
        );
      }
    }
  }
  // Two-pass: every chunk ran both passes for every rendition.
  const chunkInputs = (await chunkEncodes(twoPass)).map((chunk) => chunk.input);
  assert.equal(chunkInputs.length, 3);
  assert.ok(
    chunkInputs.every(
      (input) => input.renditions.length === 2 && input.renditions.every((rendition) => rendition.twoPass),
    ),
  );
});

/**
 * Presentation times of a playlist's keyframes, in seconds (3 decimals), from the packets' key flags
 * (the AV1 decoder takes no -skip_frame, so decoded frames cannot tell).
 */
async function keyframeTimes(playlist: string): Promise<number[]> {
  const { stdout } = await run(
    'ffprobe',
    ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts_time,flags', '-of', 'csv=p=0', playlist],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  return [...stdout.matchAll(/^(-?[\d.]+),K/gm)]
    .map((m) => Math.round(Number(m[1]) * 1000) / 1000)
    .sort((a, b) => a - b);
}

test("content-aware with AV1 and HEVC renditions, in chunks: every rendition decodes every frame, cut on the H.264 ladder's keyframes, with its codec in CODECS and its VMAF measured; on a still picture H.264 spends less than fixed", async () => {
  // Colour bars that never move: the fixed ladder spends its bitrate on them anyway, the floor does not.
  const stillPath = await makeClip({
    seconds: 20,
    width: 854,
    height: 480,
    fps: 30,
    audio: true,
    path: join(workDir, 'still.mp4'),
    picture: 'still',
  });
  const body = await readFile(stillPath);
  const [fixedVideoId, videoId] = await Promise.all([
    farm.submitVideo(body, { quality: 'standard' }),
    farm.submitVideo(body, { quality: 'standard', encodingMode: 'contentAware', additionalCodecs: ['av1', 'hevc'] }),
  ]);
  await farm.waitForStatus(fixedVideoId, 'ready', 600_000);
  await farm.waitForStatus(videoId, 'ready', 600_000);
  const details = await farm.kino.videos.get(farm.orgId, videoId);
  assert.deepEqual(
    details.encodings.map((e) => `${e.key} ${e.videoCodec}`),
    ['360p h264', '480p h264', '360p-hevc hevc', '480p-hevc hevc', '360p-av1 av1', '480p-av1 av1'],
  );
  // One activity per chunk per codec (and pass count): 3 chunks of H.264, of HEVC and of AV1.
  const scheduled = await farm.scheduledActivities(videoId);
  assert.equal(scheduled.encodeChunk, 9);

  const dir = join(workDir, videoId);
  await farm.downloadVideo(videoId, dir);
  const master = await readFile(join(dir, 'hls', 'master.m3u8'), 'utf8');
  const h264Keyframes = await keyframeTimes(join(dir, 'hls', '360p', 'playlist.m3u8'));
  assert.deepEqual(
    h264Keyframes,
    [0, 2, 4, 6, 8, 10, 12, 14, 16, 18],
    'H.264: a keyframe every 2 s, so one starts every segment',
  );
  for (const encoding of details.encodings) {
    const playlistPath = join(dir, 'hls', encoding.key, 'playlist.m3u8');
    const what = `${encoding.key}`;
    assert.equal(await countDecodedFrames(playlistPath), 600, `${what} decodes every frame`);
    const playlist = await readFile(playlistPath, 'utf8');
    assert.deepEqual(
      [...playlist.matchAll(/^#EXTINF:([\d.]+),/gm)].map((m) => Number(m[1])),
      [6, 6, 6, 2],
      `${what}: 6 s segments`,
    );
    assert.deepEqual(
      await keyframeTimes(playlistPath),
      h264Keyframes,
      `${what}: keyframes on the H.264 ladder's, so players switch between them at any segment`,
    );
    assertRunsOn(await packetTimes(playlistPath, 'v:0'), 1 / 30, `${what} video`);
    // CODECS of each variant names its codec, as the init segment says.
    const variant = master.split('\n').findIndex((line) => line === `${encoding.key}/playlist.m3u8`);
    const codecs = /CODECS="([^"]+)"/.exec(master.split('\n')[variant - 1] ?? '')?.[1] ?? '';
    const sampleEntry = { h264: 'avc1.', hevc: 'hvc1.', av1: 'av01.' }[encoding.videoCodec];
    assert.ok(codecs.startsWith(sampleEntry) && codecs.endsWith(',mp4a.40.2'), `${what}: CODECS="${codecs}"`);
    assert.equal(
      await streamField(playlistPath, 'v:0', 'codec_name'),
      { h264: 'h264', hevc: 'hevc', av1: 'av1' }[encoding.videoCodec],
    );
    // Scored against the source on the nodes (every chunk of a video this short).
    assert.ok(
      encoding.vmaf !== undefined && encoding.vmaf > 50 && encoding.vmaf <= 100,
      `${what}: VMAF ${encoding.vmaf}`,
    );
    assert.ok(
      encoding.averageBitrate !== undefined && encoding.averageBitrate > 0,
      `${what}: average bitrate ${encoding.averageBitrate}`,
    );
  }
  // Content-aware stops at the floor where fixed spends more on a picture that needs little.
  const fixedDir = join(workDir, fixedVideoId);
  await farm.downloadVideo(fixedVideoId, fixedDir);
  for (const rendition of ['360p', '480p']) {
    const aware = await videoKbps(join(dir, 'hls', rendition, 'playlist.m3u8'), 20);
    const fixed = await videoKbps(join(fixedDir, 'hls', rendition, 'playlist.m3u8'), 20);
    assert.ok(
      aware < fixed * 0.85,
      `${rendition}: content-aware video at ${aware.toFixed(1)} kbps against fixed at ${fixed.toFixed(1)}`,
    );
  }
  const fixedDetails = await farm.kino.videos.get(farm.orgId, fixedVideoId);
  assert.ok(
    fixedDetails.encodings.every((e) => e.videoCodec === 'h264' && e.vmaf === undefined),
    'a fixed H.264 ladder is not scored',
  );
});

/** The codecs of the encodes `node` started for `videoId`, from its `encode starting` log lines. */
async function codecsEncodedBy(node: FarmNodeProcess, videoId: string): Promise<string[]> {
  const codecs: string[] = [];
  for (const line of (await readFile(node.logFile, 'utf8')).split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; jobId?: string; settings?: { videoCodec?: string }[] };
    if (entry.msg === 'encode starting' && entry.jobId?.startsWith(videoId))
      codecs.push(...(entry.settings ?? []).map((s) => s.videoCodec ?? 'audio'));
  }
  return codecs;
}

test('AV1 on a farm where one node lacks the quality ffmpeg: the AV1 encodes wait, saying why, while no node has it, and all run on the one that joins with it (issue 54)', async () => {
  // Only a node without the quality ffmpeg is live: the earlier tests' nodes leave.
  await Promise.all(Object.values(nodes).map((node) => node.process.stop()));
  const plain = await farm.startNode('plain', { threads: 1, qualityFfmpeg: false });
  // 12 s of 640x360: one rendition (360p), in H.264 and in AV1. With AV1 asked for, the picture's
  // encodes are scored (VMAF): each needs the quality ffmpeg. Its sound's (the MP4 download's AAC)
  // needs nothing.
  const shortClip = await makeClip({
    seconds: 12,
    width: 640,
    height: 360,
    fps: 30,
    audio: true,
    path: join(workDir, 'av1.mp4'),
  });
  const videoId = await farm.submitVideo(await readFile(shortClip), { quality: 'standard', additionalCodecs: ['av1'] });

  const waiting = await waitFor(
    "the video's details to say why its encodes wait",
    async () => (await farm.kino.videos.get(farm.orgId, videoId)).waitingFor,
    { timeoutMs: 120_000, intervalMs: 200 },
  );
  assert.equal(waiting, 'no live encode node has the quality ffmpeg (SVT-AV1, libvmaf)');
  // The operators see the same: the waiting encodes, each with its reason (kino nodes list prints them).
  // Each encode joins the queue when its own dispatch finds no node, the first of them marking the
  // video: wait for both rather than read the queue at the moment the first is marked.
  const queue = await waitFor(
    'the H.264 and the AV1 encodes to wait',
    async () => {
      const entries = (await farm.kino.nodes.waiting()).filter((w) => w.videoId === videoId);
      return entries.length >= 2 ? entries : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  assert.ok(queue.every((w) => w.waitingFor === waiting));
  const listed = (await farm.kino.nodes.list()).find((n) => n.id === plain.nodeId)!;
  assert.equal(listed.qualityFfmpeg, false);
  assert.ok(listed.encoders.includes('libx264'), `the node's encoders: ${listed.encoders.join(', ')}`);
  assert.equal((await farm.kino.videos.get(farm.orgId, videoId)).status.transcoding, true);

  // A node with the quality ffmpeg joins: the waiting encodes run on it at once, none on the plain
  // node, which is live throughout.
  const quality = await farm.startNode('quality', { threads: 1 });
  await farm.waitForStatus(videoId, 'ready', 300_000);
  const details = await farm.kino.videos.get(farm.orgId, videoId);
  assert.equal(details.waitingFor, undefined);
  assert.deepEqual(
    details.encodings.map((e) => e.key),
    ['360p', '360p-av1'],
  );
  assert.deepEqual(await codecsEncodedBy(plain, videoId), [], 'the plain node encoded no picture');
  const scheduled = await farm.scheduledActivities(videoId);
  const onQuality = await codecsEncodedBy(quality, videoId);
  assert.deepEqual(
    [...new Set(onQuality)].sort(),
    ['av1', 'h264'],
    `every encode of a picture ran on the quality node (${JSON.stringify(scheduled)})`,
  );
  const dir = join(workDir, videoId);
  await farm.downloadVideo(videoId, dir);
  assert.equal(await countDecodedFrames(join(dir, 'hls', '360p-av1', 'playlist.m3u8')), 360, 'AV1 decodes every frame');
  assert.deepEqual(
    (await farm.kino.nodes.waiting()).filter((w) => w.videoId === videoId),
    [],
  );
});
