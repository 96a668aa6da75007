// Watermarks (issue 57, item 2) through the real farm (API, Temporal, orchestrator, an encode node,
// delivery), driven by the SDK: an image uploaded to the environment is burnt into every rendition of
// a video that names it (the H.264 ladder, HEVC and AV1 alike, made whole), into a frame-accurate
// clip's re-encoded ends, and, as the environment's default, into a video that names none (made just
// in time: chunk runs). In each, the first frame's box where the watermark belongs (its size and
// margins the shares of that rung's picture) matches the image scaled to it (PSNR against a
// template the test makes itself), and the rest of the frame is the source's picture (PSNR against
// the source's frame scaled to the rung). Bad values answer 400 naming the field.
import { afterAll, beforeAll, expect, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { APIError, type ProcessVideoParams, type Watermark } from '@kino/sdk';
import { makeClip } from '@kino/test/support/media';
import type { FarmTenant } from '../farm/farm.ts';
import { joinSharedFarm } from '../farm/shared-farm.ts';

const run = promisify(execFile);

let farm: FarmTenant;
let workDir: string;
let sourcePath: string;
let logoId: string;

// The logo: white with a black block in its middle, 2:1, opaque. Nothing in testsrc2 looks like it
// (the control below checks that), so a box that matches it holds the watermark.
const logoWidth = 200;
const logoHeight = 100;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-watermarks-'));
  const logoPath = join(workDir, 'logo.png');
  // 8 s at 24 fps: two segments (6 s and 2 s), so a clip has two re-encoded ends.
  [farm, sourcePath] = await Promise.all([
    joinSharedFarm('watermarks'),
    // 480p: two rungs of the standard ladder (360p, 480p) in each codec.
    makeClip({ seconds: 8, width: 854, height: 480, fps: 24, audio: false, path: join(workDir, 'source.mp4') }),
    run('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', `color=c=white:s=${logoWidth}x${logoHeight}`],
      ...['-vf', 'drawbox=x=50:y=25:w=100:h=50:color=black:t=fill', '-frames:v', '1', logoPath],
    ]),
  ]);
  const logo = await farm.kino.images.upload(farm.orgId, farm.envId, await readFile(logoPath));
  assert.deepEqual([logo.format, logo.width, logo.height], ['png', logoWidth, logoHeight]);
  logoId = logo.imageId;
});

afterAll(async () => {
  await farm?.stop();
  await rm(workDir, { recursive: true, force: true });
});

async function processSource(options: Pick<ProcessVideoParams, 'watermark' | 'additionalCodecs'>): Promise<string> {
  const source = await readFile(sourcePath);
  const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, {
    filename: 'source.mp4',
    fileSize: source.length,
    contentType: 'video/mp4',
  });
  await farm.kino.uploads.putFile(ticket, source, 'video/mp4');
  const { videoID } = await farm.kino.videos.process(farm.orgId, farm.envId, {
    storagePath: ticket.bucketPath,
    videoQuality: 'standard',
    allowPublicAccess: true,
    compressionRatio: 'ultrafast',
    ...options,
  });
  return videoID;
}

/** One frame as 8-bit luma, `width` × `height`: of `input` at `seconds`, scaled to that size when `scale`. */
async function lumaFrame(input: string, seconds: number, width: number, height: number, scale = false) {
  const { stdout, stderr } = await run(
    'ffmpeg',
    [
      // Decoded from the start and dropped up to `seconds` (output seeking): ffmpeg 5.1 misreads fMP4
      // HLS segments after an input seek (it parses them without their init segment).
      ...['-v', 'error', '-i', input, '-ss', String(seconds), '-frames:v', '1'],
      ...(scale ? ['-vf', `scale=${width}:${height}:flags=bicubic`] : []),
      ...['-f', 'rawvideo', '-pix_fmt', 'gray', '-'],
    ],
    { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
  );
  assert.equal(stdout.length, width * height, `a ${width}x${height} frame of ${input} (ffmpeg: ${String(stderr)})`);
  return stdout;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Where the watermark belongs at a rung, from the documented rule (not from the code that draws it):
 * its width the share of the picture's (even), its height by the logo's aspect, its margins the
 * share of the width (left, right) and of the height (top, bottom).
 */
function expectedBox(watermark: Watermark, picture: { width: number; height: number }): Box {
  const width = 2 * Math.round((picture.width * watermark.widthPercent) / 200);
  const height = Math.round((width * logoHeight) / logoWidth);
  const marginX = Math.round((picture.width * watermark.marginPercent) / 100);
  const marginY = Math.round((picture.height * watermark.marginPercent) / 100);
  const right = watermark.position.endsWith('right');
  const bottom = watermark.position.startsWith('bottom');
  return {
    width,
    height,
    x: right ? picture.width - width - marginX : marginX,
    y: bottom ? picture.height - height - marginY : marginY,
  };
}

/** PSNR (dB) between two 8-bit planes over the pixels `take` selects. */
function psnr(a: Buffer, b: Buffer, take: (index: number) => boolean): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < a.length; i += 1) {
    if (!take(i)) continue;
    const d = a[i]! - b[i]!;
    sum += d * d;
    count += 1;
  }
  const mse = sum / count;
  return mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse);
}

/** The pixels of a `width`-wide frame inside the box (shrunk by `inset`) or outside it (grown by `inset`): its edge is blended by scaling and compression. */
function inBox(box: Box, width: number, inset: number) {
  return (i: number) => {
    const x = i % width;
    const y = Math.floor(i / width);
    return x >= box.x + inset && x < box.x + box.width - inset && y >= box.y + inset && y < box.y + box.height - inset;
  };
}

/** The box's pixels of a frame as a plane of the box's size. */
function crop(frame: Buffer, width: number, box: Box): Buffer {
  const out = Buffer.alloc(box.width * box.height);
  for (let y = 0; y < box.height; y += 1)
    frame.copy(out, y * box.width, (box.y + y) * width + box.x, (box.y + y) * width + box.x + box.width);
  return out;
}

/**
 * The first frame of `url` (a rendition playlist on the delivery host) at `seconds` holds the logo in
 * its box and the source's picture everywhere else. Answers the PSNRs for the message.
 */
async function assertWatermarked(
  label: string,
  url: string,
  picture: { width: number; height: number },
  watermark: Watermark,
  sourceSeconds: number,
  seconds = 0,
) {
  const { width, height } = picture;
  const box = expectedBox(watermark, picture);
  const [frame, source, template] = await Promise.all([
    lumaFrame(url, seconds, width, height),
    lumaFrame(sourcePath, sourceSeconds, width, height, true),
    // The logo as the rung should show it: scaled to the box.
    lumaFrame(join(workDir, 'logo.png'), 0, box.width, box.height, true),
  ]);
  // Inside the box, 2 px in from its edge: the logo, not the picture under it.
  const boxOfFrame = crop(frame, width, box);
  const boxOfSource = crop(source, width, box);
  const inner = inBox({ x: 0, y: 0, width: box.width, height: box.height }, box.width, 2);
  const logoInFrame = psnr(boxOfFrame, template, inner);
  const logoInSource = psnr(boxOfSource, template, inner);
  // Outside the box, 2 px clear of it: the source's picture, as an encode of this rung keeps it.
  const around = inBox(box, width, -2);
  const pictureElsewhere = psnr(frame, source, (i) => !around(i));
  const figures = `${label}: logo ${logoInFrame.toFixed(1)} dB in the box (the source's own ${logoInSource.toFixed(1)} dB), picture ${pictureElsewhere.toFixed(1)} dB elsewhere`;
  // The bounds: these encodes keep the source at 37–47 dB (and the logo at 40–55 dB) in each rung
  // and codec here, while the logo against the source's picture is about 6 dB: a watermark a few
  // pixels off, in another corner, or missing, or any of it outside its box, falls far below them.
  assert.ok(logoInSource < 12, `the logo is unlike the source there: ${figures}`);
  assert.ok(logoInFrame >= 30, `the logo is in its box: ${figures}`);
  assert.ok(pictureElsewhere >= 32, `the rest is the source's picture: ${figures}`);
  return figures;
}

/** The renditions the master playlist names, with their sizes (from the playlist's RESOLUTION). */
async function renditionsOf(videoId: string): Promise<{ key: string; width: number; height: number }[]> {
  const master = await (await fetch(`${farm.deliveryUrl}/${videoId}/master.m3u8`)).text();
  const named = [...master.matchAll(/RESOLUTION=(\d+)x(\d+).*\n([\w-]+)\.m3u8/g)].map((m) => ({
    key: m[3]!,
    width: Number(m[1]),
    height: Number(m[2]),
  }));
  return named.filter((r, k) => named.findIndex((other) => other.key === r.key) === k);
}

test('a watermark is burnt into every rendition at its place, the same share of every rung, and into a frame-accurate clip', async () => {
  const asked = { imageId: logoId, position: 'bottom-right' as const, widthPercent: 25, marginPercent: 4 };
  const videoId = await processSource({ watermark: asked, additionalCodecs: ['hevc', 'av1'] });
  await farm.waitForStatus(videoId, 'ready', 240_000);
  const details = await farm.kino.videos.get(farm.orgId, videoId);
  const watermark = { ...asked, opacity: 1 };
  assert.deepEqual(details.watermark, watermark, 'kept with its defaults');

  const renditions = await renditionsOf(videoId);
  const codecs = new Set(renditions.map((r) => r.key.split('-')[1] ?? 'h264'));
  assert.deepEqual([...codecs].sort(), ['av1', 'h264', 'hevc'], renditions.map((r) => r.key).join(', '));
  assert.ok(renditions.length >= 6, 'two rungs or more of each codec');
  const figures = [];
  for (const rendition of renditions) {
    const url = `${farm.deliveryUrl}/${videoId}/${rendition.key}.m3u8`;
    figures.push(await assertWatermarked(rendition.key, url, rendition, watermark, 0));
  }

  // A frame-accurate clip from 1.5 s: its first segment is encoded again from the source, with the
  // source's watermark, and joins the segments it copies.
  const { videoID: clipId } = await farm.kino.videos.createClip(farm.orgId, videoId, {
    startTime: 1.5,
    endTime: 7.5,
    frameAccurate: true,
  });
  await farm.waitForStatus(clipId, 'ready', 180_000);
  for (const rendition of (await renditionsOf(clipId)).filter((r) => !r.key.includes('-'))) {
    const url = `${farm.deliveryUrl}/${clipId}/${rendition.key}.m3u8`;
    figures.push(await assertWatermarked(`clip ${rendition.key}`, url, rendition, watermark, 1.5));
  }
  console.log(figures.join('\n'));
});

test("the environment's default watermark marks a video that names none, in every just-in-time run", async () => {
  const standing = await farm.kino.environments.update(farm.orgId, farm.envId, {
    watermark: { imageId: logoId, position: 'top-left', widthPercent: 20 },
    justInTime: true,
  });
  const watermark = { imageId: logoId, position: 'top-left' as const, widthPercent: 20, marginPercent: 3, opacity: 1 };
  assert.deepEqual(standing.watermark, watermark);
  const videoId = await processSource({});
  await farm.waitForStatus(videoId, 'ready', 240_000);
  assert.deepEqual((await farm.kino.videos.get(farm.orgId, videoId)).watermark, watermark);
  const [top] = await renditionsOf(videoId);
  const url = `${farm.deliveryUrl}/${videoId}/${top!.key}.m3u8`;
  // The first segment and the second, each a run of its own (delivery waits for a run not yet made).
  console.log(await assertWatermarked(`default ${top!.key} at 0 s`, url, top!, watermark, 0));
  console.log(await assertWatermarked(`default ${top!.key} at 6.5 s`, url, top!, watermark, 6.5, 6.5));
  await farm.kino.environments.update(farm.orgId, farm.envId, { watermark: null, justInTime: null });
});

test('bad watermarks and images answer 400 naming the field', async () => {
  const refusal = async (call: Promise<unknown>) => {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof APIError, String(error));
    return { status: error.status, code: error.code, locations: error.errors.map((e) => e.location) };
  };
  const process = (watermark: unknown) =>
    farm.kino.videos.ingest(farm.orgId, farm.envId, {
      url: 'https://example.com/talk.mp4',
      videoQuality: 'standard',
      allowPublicAccess: true,
      watermark: watermark as never,
    });
  const good = { imageId: logoId, position: 'center' };
  for (const [field, value] of [
    ['widthPercent', 51],
    ['widthPercent', 0.5],
    ['marginPercent', 21],
    ['opacity', 1.5],
    ['position', 'middle'],
  ] as const) {
    expect(await refusal(process({ ...good, [field]: value }))).toEqual({
      status: 400,
      code: 'invalid_parameters',
      locations: [`body.watermark.${field}`],
    });
  }
  expect(await refusal(process({ ...good, imageId: 'img_0000000000000000' }))).toEqual({
    status: 400,
    code: 'invalid_parameters',
    locations: ['body.watermark.imageId'],
  });
  expect(
    await refusal(
      farm.kino.environments.update(farm.orgId, farm.envId, { watermark: { ...good, opacity: -1 } as never }),
    ),
  ).toEqual({ status: 400, code: 'invalid_watermark', locations: ['body.watermark.opacity'] });
  expect(
    await refusal(farm.kino.images.upload(farm.orgId, farm.envId, new TextEncoder().encode('GIF89a, not a PNG'))),
  ).toEqual({ status: 400, code: 'invalid_image', locations: ['body.content'] });
});
