import { test } from 'vitest';
import assert from 'node:assert/strict';
import type { RenditionSpec__Output } from '@kino/proto';
import { testSource as source } from './encode-options.fixture.ts';
import { InvalidRequestError } from './errors.ts';
import { planHlsEncode } from './hls-plan.ts';

const spec: RenditionSpec__Output = {
  key: '360p',
  width: 640,
  height: 360,
  videoBitrateKbps: 800,
  audioBitrateKbps: 128,
  frameRate: 0,
  pixelFormat: 'yuv420p',
  rateControlMode: 'variableBitrate',
  twoPass: false,
  x264Preset: 'veryfast',
  audioCodec: 'aac',
  segmentSeconds: 6,
  videoCodec: 'h264',
  minQuantizer: 0,
  dynamicRange: '',
  audioStream: 0,
  hardwareEncodingAllowed: false,
  audioEndSeconds: 0,
  pictureCopy: false,
  lowDelay: false,
};
const whole = [spec, { ...spec, key: '240p', width: 426, height: 240 }];
const urlsFor = (keys: string[], names = ['playlist.m3u8', 'init.mp4']) =>
  Object.fromEntries(
    keys.flatMap((key) => names.map((name) => [`${key}/${name}`, `http://storage.test/${key}/${name}`])),
  );

test('a plan resolves each rendition, its files under its key, on the ffmpeg of its codec', () => {
  const plan = planHlsEncode(whole, urlsFor(['360p', '240p']), ['playlist.m3u8', 'init.mp4'], source, undefined);
  assert.deepEqual(
    plan.renditions.map((r) => [r.prefix, r.settings.width, r.settings.height]),
    [
      ['360p/', 640, 360],
      ['240p/', 426, 240],
    ],
  );
  assert.equal(plan.program, undefined, 'H.264 runs on the ffmpeg on PATH');
  assert.equal(plan.twoPass, false);
  const twoPass = planHlsEncode(
    whole.map((s) => ({ ...s, twoPass: true })),
    urlsFor(['360p', '240p']),
    [],
    source,
    undefined,
  );
  assert.equal(twoPass.twoPass, true);
  const av1 = planHlsEncode([{ ...spec, videoCodec: 'av1' }], {}, [], source, '/opt/quality/ffmpeg');
  assert.equal(av1.program, '/opt/quality/ffmpeg', 'AV1 runs on the quality ffmpeg');
});

test('a plan refuses what the node cannot make as asked, before anything runs', () => {
  const refuses = (
    specs: RenditionSpec__Output[],
    message: RegExp,
    { urls = urlsFor(specs.map((s) => s.key)), quality = undefined as string | undefined } = {},
  ) =>
    assert.throws(
      () => planHlsEncode(specs, urls, ['playlist.m3u8', 'init.mp4'], source, quality),
      (error: unknown) => error instanceof InvalidRequestError && message.test(error.message),
    );
  refuses([], /renditions is empty/);
  refuses([{ ...spec, key: '../720p' }], /not a plain name/);
  refuses([spec, spec], /appears twice/);
  refuses([spec], /no URL for 360p\/init.mp4/, { urls: urlsFor(['360p'], ['playlist.m3u8']) });
  refuses([spec, { ...whole[1]!, videoCodec: 'hevc' }], /share a video codec/);
  refuses([{ ...spec, videoCodec: 'av1' }], /need the quality ffmpeg/);
  refuses([spec, { ...whole[1]!, twoPass: true }], /all be two-pass or all single-pass/);
  refuses([{ ...spec, width: 0 }], /out of range/);
  // A chunk after the first needs no URL of its own before it runs: it writes no playlist nor init segment.
  assert.doesNotThrow(() => planHlsEncode([spec], {}, [], source, undefined));
});

test("a rendition allowed hardware gets one of the node's working hardware encoders of its codec, where its rules can be met on it (a fake encoder list: no GPU here)", () => {
  const gpu = ['libx264', 'libx265', 'h264_nvenc', 'hevc_vaapi'];
  const encoderOf = (specs: RenditionSpec__Output[], encoders: string[]) =>
    planHlsEncode(specs, {}, [], source, undefined, encoders).renditions.map((r) => r.settings.hardwareEncoder);
  const allowed = { ...spec, hardwareEncodingAllowed: true };
  assert.deepEqual(encoderOf([allowed], gpu), ['h264_nvenc']);
  assert.deepEqual(encoderOf([{ ...allowed, videoCodec: 'hevc' }], gpu), ['hevc_vaapi']);
  assert.deepEqual(encoderOf([spec], gpu), [undefined], 'not allowed: x264');
  assert.deepEqual(encoderOf([allowed], ['libx264', 'libx265']), [undefined], 'no hardware encoder: x264');
  assert.deepEqual(encoderOf([{ ...allowed, twoPass: true }], gpu), [undefined], 'two-pass stays on x264');
  assert.deepEqual(encoderOf([{ ...allowed, minQuantizer: 20 }], gpu), [undefined], 'a quantizer floor stays on x264');
});
