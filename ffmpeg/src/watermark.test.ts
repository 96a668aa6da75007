import { test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { audioEncodingOf } from '@kino/proto/contract';
import { runFfmpeg } from './command.ts';
import {
  escapeFilterValue,
  hlsEncodeArgs,
  hlsLadderArgs,
  videoFilterGraph,
  watermarkOverlayFilter,
  watermarkPixels,
  type HlsEncodeSettings,
  type WatermarkOverlay,
} from './presets.ts';

const run = promisify(execFile);

const settings: HlsEncodeSettings = {
  width: 640,
  height: 360,
  frameRate: 25,
  capFrameRate: false,
  pixelFormat: 'yuv420p',
  videoCodec: 'h264',
  x264Preset: 'ultrafast',
  videoBitrateKbps: 800,
  rateControl: 'variableBitrate',
  twoPass: false,
  segmentSeconds: 6,
  audio: { encoding: audioEncodingOf.aac, bitrateKbps: 128, channels: 2 },
};

const watermark: WatermarkOverlay = {
  imageFile: '/jobs/j1/watermark',
  position: 'bottom-right',
  marginPercent: 3,
  widthPercent: 12,
  opacity: 1,
};

/** The value following `flag` in an argument list. */
function valueOf(args: string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
}

test('the watermark is the same share of the picture at every rung: its width of the width, its margins of each edge', () => {
  assert.deepEqual(watermarkPixels(watermark, { width: 1920, height: 1080 }), { width: 230, marginX: 58, marginY: 32 });
  assert.deepEqual(watermarkPixels(watermark, { width: 640, height: 360 }), { width: 76, marginX: 19, marginY: 11 });
  // Always even, never nothing.
  assert.deepEqual(watermarkPixels({ widthPercent: 1, marginPercent: 0 }, { width: 100, height: 56 }), {
    width: 2,
    marginX: 0,
    marginY: 0,
  });
});

test('each position puts the image in its corner (or the centre), the margins from the edges', () => {
  const at = (position: WatermarkOverlay['position']) =>
    watermarkOverlayFilter({ ...watermark, position }, { width: 640, height: 360 });
  assert.equal(at('top-left'), 'overlay=x=19:y=11:format=auto');
  assert.equal(at('top-right'), 'overlay=x=main_w-overlay_w-19:y=11:format=auto');
  assert.equal(at('bottom-left'), 'overlay=x=19:y=main_h-overlay_h-11:format=auto');
  assert.equal(at('bottom-right'), 'overlay=x=main_w-overlay_w-19:y=main_h-overlay_h-11:format=auto');
  assert.equal(at('center'), 'overlay=x=(main_w-overlay_w)/2:y=(main_h-overlay_h)/2:format=auto');
});

test('the image is read once, scaled to the rung and faded only below full opacity; laid over after the tone map, before the GPU upload', () => {
  assert.equal(
    videoFilterGraph({ ...settings, watermark }),
    'scale=640:360:flags=bicubic,setsar=1[pic];' +
      'movie=filename=/jobs/j1/watermark,scale=76:-1:flags=lanczos,format=rgba[wm];' +
      '[pic][wm]overlay=x=main_w-overlay_w-19:y=main_h-overlay_h-11:format=auto',
  );
  const faded = videoFilterGraph({ ...settings, watermark: { ...watermark, opacity: 0.5 } });
  assert.match(faded, /format=rgba,colorchannelmixer=aa=0\.5\[wm\]/);
  const graph = videoFilterGraph(
    { ...settings, toneMapFrom: 'hdr10', hardwareEncoder: 'h264_vaapi', watermark },
    { input: 's1', output: 'v1', id: '1' },
  );
  assert.match(graph, /^\[s1\]scale=640:360:flags=bicubic,setsar=1,zscale=.*format=yuv420p\[pic1\];movie=/);
  assert.match(graph, /\[pic1\]\[wm1\]overlay=[^;]*,format=nv12,hwupload\[v1\]$/);
  // No watermark: the chain as before, unlabelled in -vf.
  assert.equal(videoFilterGraph(settings), 'scale=640:360:flags=bicubic,setsar=1');
});

test("a file name is escaped for the movie filter's option and for the graph", () => {
  assert.equal(escapeFilterValue('/a/b'), '/a/b');
  // `:` once for the option; `\` (the option's escape) and `,` again for the graph.
  assert.equal(escapeFilterValue('/a:b,c'), '/a\\\\:b\\,c');
  assert.equal(escapeFilterValue("it's"), "it\\\\\\'s");
});

/** The mean of each 8-bit luma sample of `frame` inside and outside the box. */
function lumaInAndOut(
  frame: Buffer,
  width: number,
  box: { x: number; y: number; width: number; height: number },
): { inside: number; outside: number } {
  let inside = 0;
  let insideCount = 0;
  let outside = 0;
  let outsideCount = 0;
  frame.forEach((value, index) => {
    const x = index % width;
    const y = Math.floor(index / width);
    // A pixel's width around the box: its edge is blended by the scaler.
    const near = x >= box.x - 1 && x < box.x + box.width + 1 && y >= box.y - 1 && y < box.y + box.height + 1;
    const within = x >= box.x + 1 && x < box.x + box.width - 1 && y >= box.y + 1 && y < box.y + box.height - 1;
    if (within) {
      inside += value;
      insideCount += 1;
    } else if (!near) {
      outside += value;
      outsideCount += 1;
    }
  });
  return { inside: inside / insideCount, outside: outside / outsideCount };
}

async function firstFrameLuma(dir: string, width: number, height: number): Promise<Buffer> {
  const { stdout } = await run(
    'ffmpeg',
    ['-v', 'error', '-i', join(dir, 'playlist.m3u8'), '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', '-'],
    { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
  );
  assert.equal(stdout.length, width * height);
  return stdout;
}

test('ffmpeg burns the image into every rung of a ladder and into a chunk, where the graph says and nowhere else', async () => {
  // A directory with characters the filtergraph would otherwise read as its own.
  const dir = await mkdtemp(join(tmpdir(), 'kino-watermark:a,b;c-'));
  try {
    const source = join(dir, 'source.mp4');
    const image = join(dir, 'logo');
    await runFfmpeg(['-f', 'lavfi', '-i', 'color=c=black:s=480x270:r=25:d=1', '-c:v', 'libx264', '-y', source]);
    // A white PNG, 4:1, named without an extension as the node stores it.
    await runFfmpeg([
      '-f',
      'lavfi',
      '-i',
      'color=c=white:s=200x50',
      '-frames:v',
      '1',
      '-f',
      'image2',
      '-c:v',
      'png',
      image,
    ]);
    const mark = { ...watermark, imageFile: image, marginPercent: 5, widthPercent: 25 };
    const rungs = [
      { width: 320, height: 180, dir: 'r180' },
      { width: 160, height: 90, dir: 'r90' },
    ];
    const noAudio = { ...settings, audio: undefined };
    const args = hlsLadderArgs({
      input: source,
      outputs: rungs.map((r) => ({ settings: { ...noAudio, ...r, watermark: mark }, dir: r.dir })),
      threads: 1,
    });
    await Promise.all(rungs.map((r) => run('mkdir', ['-p', join(dir, r.dir)])));
    await runFfmpeg(['-y', ...args], { cwd: dir });
    for (const rung of rungs) {
      const { width, marginX, marginY } = watermarkPixels(mark, rung);
      const box = { width, height: width / 4, x: rung.width - width - marginX, y: rung.height - width / 4 - marginY };
      const { inside, outside } = lumaInAndOut(
        await firstFrameLuma(join(dir, rung.dir), rung.width, rung.height),
        rung.width,
        box,
      );
      assert.ok(inside > 220, `${rung.dir}: the box is white (${inside})`);
      assert.ok(outside < 24, `${rung.dir}: the rest is black (${outside})`);
    }
    // One rendition through -vf, a chunk from 0.4 s, the image in the top-left corner at half opacity.
    const chunkDir = join(dir, 'chunk');
    await run('mkdir', ['-p', chunkDir]);
    const half = { ...mark, position: 'top-left' as const, opacity: 0.5 };
    const chunk = hlsEncodeArgs({
      input: source,
      settings: { ...noAudio, width: 320, height: 180, watermark: half },
      chunk: { startSeconds: 0.4, durationSeconds: 0.6, firstSegment: 0 },
      threads: 1,
    });
    assert.match(valueOf(chunk, '-vf')!, /\[pic\]\[wm\]overlay=x=16:y=9:/);
    await runFfmpeg(['-y', ...chunk], { cwd: chunkDir });
    assert.ok((await readdir(chunkDir)).includes('playlist.m3u8'));
    const { width } = watermarkPixels(half, { width: 320, height: 180 });
    const { inside, outside } = lumaInAndOut(await firstFrameLuma(chunkDir, 320, 180), 320, {
      x: 16,
      y: 9,
      width,
      height: width / 4,
    });
    // Half of white over black, in limited range: about (16 + 235) / 2.
    assert.ok(inside > 110 && inside < 150, `half opacity: ${inside}`);
    assert.ok(outside < 24, `the rest is black (${outside})`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
