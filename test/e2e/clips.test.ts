// Clips end to end on the real farm (API, Temporal, orchestrator, an encode node, delivery, chDB): a
// frame-accurate clip is encoded (its first and last segments) and plays exactly its range in every
// rendition, frame for frame; a segment-accurate clip of a transcoded video is ready when the call
// answers, plays frame for frame the source's frames of the segments it covers, has its served
// segments logged against its own id, stays playable after its source is deleted (the source's
// segments stay in storage), and takes the source's objects with it when it is deleted in turn.
// Both are cut from one transcoded source.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@kino/dev';
import { objectKeys } from '@kino/proto/contract';
import { thumbnailFilter } from '@kino/ffmpeg';
import { makeClip, streamField } from '@kino/test/support/media';
import type { FarmTenant } from '../farm/farm.ts';
import { joinSharedFarm } from '../farm/shared-farm.ts';

let farm: FarmTenant;
let workDir: string;
let source: Buffer;
const fps = 25;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-clips-'));
  let sourcePath: string;
  [farm, sourcePath] = await Promise.all([
    joinSharedFarm('clips'),
    // 14 s: segments of 6, 6 and 2 s.
    makeClip({ seconds: 14, width: 640, height: 360, fps, audio: true, path: join(workDir, 'source.mp4') }),
  ]);
  source = await readFile(sourcePath);
});

afterAll(async () => {
  await farm?.stop();
  await rm(workDir, { recursive: true, force: true });
});

/**
 * The picture delivery serves of a video at `time` (PNG, 320x180) is the source's frame `n`: its
 * PSNR against that frame (through the thumbnail's own filter) is high and beats both neighbours'.
 */
async function assertPictureIsSourceFrame(videoId: string, time: number, n: number): Promise<void> {
  const response = await fetch(`${farm.deliveryUrl}/t/${videoId}/320x180.png?time=${time}`);
  assert.equal(response.status, 200, await response.clone().text());
  const got = join(workDir, `${videoId}-${time}.png`);
  await writeFile(got, Buffer.from(await response.arrayBuffer()));
  const run = promisify(execFile);
  const psnrWith = async (frame: number) => {
    const reference = join(workDir, `source-${frame}.png`);
    await run('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-i', join(workDir, 'source.mp4')],
      ...['-vf', `select=eq(n\\,${frame}),${thumbnailFilter(320, 180)}`, '-frames:v', '1', reference],
    ]);
    const { stderr } = await run('ffmpeg', [
      '-hide_banner',
      '-i',
      got,
      '-i',
      reference,
      '-lavfi',
      'psnr',
      '-f',
      'null',
      '-',
    ]);
    const average = /average:(inf|[\d.]+)/.exec(stderr)?.[1];
    return average === 'inf' ? Infinity : Number(average);
  };
  const [exact, before, after] = await Promise.all([psnrWith(n), psnrWith(n - 1), psnrWith(n + 1)]);
  assert.ok(
    exact >= 45 && exact > before + 3 && exact > after + 3,
    `frame ${n}: ${exact} dB (${before}, ${after} beside)`,
  );
}

/** The MD5 of every decoded frame of the first video stream, in order (ffmpeg's framemd5); throws on any decoding error. */
async function frameHashes(input: string): Promise<string[]> {
  const { stdout, stderr } = await promisify(execFile)(
    'ffmpeg',
    ['-hide_banner', '-nostats', '-v', 'error', '-xerror', '-i', input, '-map', '0:v:0', '-f', 'framemd5', '-'],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  if (stderr.trim()) throw new Error(`ffmpeg reported errors decoding ${input}:\n${stderr}`);
  return stdout
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => line.split(',').pop()!.trim());
}

async function servedRows(videoId: string): Promise<Array<{ segment_index: number }>> {
  return farm.clickhouse!.query<{ segment_index: number }>(
    `SELECT segment_index FROM segment_deliveries FINAL WHERE video_id = '${videoId}'`,
  );
}

/** The source, uploaded and transcoded once for every test here. */
let transcoded: Promise<{ sourceId: string; storagePath: string }> | undefined;
function transcodedSource(): Promise<{ sourceId: string; storagePath: string }> {
  transcoded ??= (async () => {
    const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, {
      filename: 'source.mp4',
      fileSize: source.length,
      contentType: 'video/mp4',
    });
    await farm.kino.uploads.putFile(ticket, source, 'video/mp4');
    const { videoID: sourceId } = await farm.kino.videos.process(farm.orgId, farm.envId, {
      storagePath: ticket.bucketPath,
      videoQuality: 'standard',
      allowPublicAccess: true,
      compressionRatio: 'ultrafast',
    });
    await farm.waitForStatus(sourceId, 'ready', 180_000);
    return { sourceId, storagePath: ticket.bucketPath };
  })();
  return transcoded;
}

/**
 * Every frame of the first video stream as 8-bit luma, `width` x `height` bytes each, in order.
 * `passthrough`: every decoded frame once; `cfr`: as a remux or a player times them (rawvideo's
 * default), a frame copied to fill any time before it that the file's other streams start in.
 */
async function lumaFrames(
  input: string,
  width: number,
  height: number,
  fpsMode: 'passthrough' | 'cfr' = 'passthrough',
): Promise<Buffer[]> {
  const { stdout } = await promisify(execFile)(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostats',
      '-v',
      'error',
      '-xerror',
      '-i',
      input,
      '-map',
      '0:v:0',
      '-fps_mode',
      fpsMode,
      '-f',
      'rawvideo',
      '-pix_fmt',
      'gray',
      '-',
    ],
    { maxBuffer: 1024 * 1024 * 1024, encoding: 'buffer' },
  );
  const size = width * height;
  assert.equal(stdout.length % size, 0, `${input} decodes to whole ${width}x${height} frames`);
  return Array.from({ length: stdout.length / size }, (_, i) => stdout.subarray(i * size, (i + 1) * size));
}

/** PSNR of two luma frames, in dB (Infinity when equal). */
function psnr(a: Buffer, b: Buffer): number {
  let squared = 0;
  for (let i = 0; i < a.length; i += 1) squared += (a[i]! - b[i]!) ** 2;
  return squared === 0 ? Infinity : 10 * Math.log10((255 * 255 * a.length) / squared);
}

/**
 * Which of the source's frames `frame` is: the index, among `around` (source frame indices), of the
 * source frame it is nearest to, and how near (PSNR). testsrc2 moves every frame, so a frame
 * re-encoded from the same picture is far nearer to it than to its neighbours.
 */
function identify(frame: Buffer, sourceFrames: Buffer[], around: number[]): { index: number; psnr: number } {
  return around
    .map((index) => ({ index, psnr: psnr(frame, sourceFrames[index]!) }))
    .reduce((best, c) => (c.psnr > best.psnr ? c : best));
}

test('a frame-accurate clip is encoded, then plays exactly its range in every rendition, frame for frame', async () => {
  const { sourceId } = await transcodedSource();
  const deliveryUrl = farm.deliveryUrl!;
  // 3.52–13.2 s (frames 88 to 329): its first segment is encoded from 3.52 to 6 s, the source's
  // second segment (6–12 s) is played as it is, its last is encoded from 12 to 13.2 s.
  const startTime = 3.52;
  const endTime = 13.2;
  const { videoID: clipId } = await farm.kino.videos.createClip(farm.orgId, sourceId, {
    startTime,
    endTime,
    frameAccurate: true,
  });
  assert.equal(
    (await farm.kino.videos.get(farm.orgId, clipId)).status.transcoding,
    true,
    'transcoding while its segments are encoded',
  );
  await farm.waitForStatus(clipId, 'ready', 180_000);
  const clip = await farm.kino.videos.get(farm.orgId, clipId);
  assert.equal(clip.durationSeconds, endTime - startTime);
  // A picture of any moment: the clip's 0.2 s is the source's 3.72 s (frame 93).
  await assertPictureIsSourceFrame(clipId, 0.2, 93);

  const keys = [
    ...(await (await fetch(`${deliveryUrl}/${clipId}/master.m3u8`)).text()).matchAll(/^(\d+p)\.m3u8$/gm),
  ].map((m) => m[1]!);
  assert.ok(keys.length > 0, 'the master playlist names the renditions');
  for (const key of keys) {
    const width = Number(await streamField(`${deliveryUrl}/${clipId}/${key}.m3u8`, 'v:0', 'width'));
    const height = Number(await streamField(`${deliveryUrl}/${clipId}/${key}.m3u8`, 'v:0', 'height'));
    const [clipFrames, sourceFrames] = await Promise.all([
      lumaFrames(`${deliveryUrl}/${clipId}/${key}.m3u8`, width, height),
      lumaFrames(`${deliveryUrl}/${sourceId}/${key}.m3u8`, width, height),
    ]);
    const first = Math.round(startTime * fps);
    const last = Math.round(endTime * fps) - 1;
    assert.equal(clipFrames.length, last - first + 1, `${key}: round((end - start) * fps) frames`);
    // Timed as a player times them: the clip's sound starts no earlier than its picture (an encoder's
    // priming before the first frame would show that frame twice), so the count holds.
    const timedFrames = await lumaFrames(`${deliveryUrl}/${clipId}/${key}.m3u8`, width, height, 'cfr');
    assert.equal(timedFrames.length, clipFrames.length, `${key}: every frame once, timed as a player times them`);
    assert.ok(!timedFrames[1]!.equals(timedFrames[0]!), `${key}: the clip's first frame is not held twice`);
    const around = (index: number) =>
      [index - 2, index - 1, index, index + 1, index + 2].filter((i) => i >= 0 && i < sourceFrames.length);
    for (const [clipIndex, sourceIndex] of [
      [0, first],
      [clipFrames.length - 1, last],
    ] as const) {
      const found = identify(clipFrames[clipIndex]!, sourceFrames, around(sourceIndex));
      assert.equal(
        found.index,
        sourceIndex,
        `${key}: the clip's frame ${clipIndex} is the source's frame ${sourceIndex}`,
      );
      assert.ok(
        found.psnr > 30,
        `${key}: the clip's frame ${clipIndex} is near the source's (${found.psnr.toFixed(1)} dB)`,
      );
    }
    // The segment between is the source's own: its frames are the source's, bit for bit.
    const middle = 6 * fps - first;
    assert.ok(
      clipFrames[middle]!.equals(sourceFrames[6 * fps]!),
      `${key}: the clip's frame ${middle} is the source's frame ${6 * fps}`,
    );
    assert.ok(
      clipFrames[middle + 6 * fps - 1]!.equals(sourceFrames[12 * fps - 1]!),
      `${key}: the source's segment plays whole`,
    );
  }

  // Deleted, it takes its own segments with it; the source's stay for the source.
  await farm.kino.videos.delete(farm.orgId, clipId);
  await waitFor(
    "the clip's objects removed",
    async () => ((await farm.storage.list(objectKeys.videoPrefix(clipId))).length === 0 ? true : undefined),
    {
      timeoutMs: 60_000,
    },
  );
  assert.ok(await farm.storage.head(objectKeys.segment(sourceId, 360, 1)), "the source's segment stays");
});

test('a segment-accurate clip is ready at once, plays its segments frame for frame, is its own video in analytics, and outlives its source', async () => {
  const { sourceId, storagePath } = await transcodedSource();
  const deliveryUrl = farm.deliveryUrl!;
  const sourceHashes = await frameHashes(`${deliveryUrl}/${sourceId}/master.m3u8`);
  assert.equal(sourceHashes.length, 14 * fps);

  // 7–11 s lies in the second segment (6–12 s): the clip is that segment, ready when the call answers.
  const { videoID: clipId } = await farm.kino.videos.createClip(farm.orgId, sourceId, { startTime: 7, endTime: 11 });
  const clip = await farm.kino.videos.get(farm.orgId, clipId);
  assert.deepEqual(
    clip.status,
    { ready: true, transcoding: false, failed: false },
    'ready when the call answers, with nothing encoded',
  );
  assert.deepEqual(clip.clipOf, { videoId: sourceId, startTime: 7, endTime: 11 });
  assert.equal(clip.durationSeconds, 6);

  const clipMaster = `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${clipId}/master.m3u8`;
  const expected = sourceHashes.slice(6 * fps, 12 * fps);
  assert.deepEqual(await frameHashes(clipMaster), expected, "the clip's frames are the source's from 6 s to 12 s");
  // A picture of any moment: the clip's 0.52 s is the source's 6.52 s (frame 163), and the source's own 2 s its frame 50.
  await assertPictureIsSourceFrame(clipId, 0.52, 163);
  await assertPictureIsSourceFrame(sourceId, 2, 50);

  // Its segments are logged against the clip, under its own numbering (one segment: index 0).
  const rows = await waitFor('segment rows for the clip', async () => {
    const served = await servedRows(clipId);
    return served.length >= 1 ? served : undefined;
  });
  assert.deepEqual([...new Set(rows.map((r) => Number(r.segment_index)))], [0]);

  // The source is deleted: its clean-up keeps the segments the clip plays (its original upload goes).
  await farm.kino.videos.delete(farm.orgId, sourceId);
  await waitFor("the source's clean-up", async () => ((await farm.storage.head(storagePath)) ? undefined : true), {
    timeoutMs: 60_000,
  });
  assert.ok(await farm.storage.head(objectKeys.segment(sourceId, 360, 1)), "the clip's segment is still in storage");
  // Delivery knows within its metadata TTL that the source is gone.
  await waitFor('the source to stop playing', async () =>
    (await fetch(`${deliveryUrl}/${sourceId}/master.m3u8`)).status === 404 ? true : undefined,
  );
  assert.deepEqual(
    await frameHashes(`${deliveryUrl}/${clipId}/master.m3u8`),
    expected,
    'the clip still plays every frame',
  );
  // Its upload gone, no picture of any moment can be made: 404, not an error of the server.
  const gone = await fetch(`${deliveryUrl}/t/${clipId}/320x180.png?time=1`);
  assert.equal(gone.status, 404);
  assert.equal(((await gone.json()) as { code: string }).code, 'thumbnail_not_found');

  // The clip is deleted: the source's objects go with it.
  await farm.kino.videos.delete(farm.orgId, clipId);
  await waitFor(
    "the source's objects removed with its last clip",
    async () => ((await farm.storage.list(objectKeys.videoPrefix(sourceId))).length === 0 ? true : undefined),
    { timeoutMs: 60_000 },
  );
  assert.deepEqual(await farm.storage.list(objectKeys.videoPrefix(clipId)), []);
});
