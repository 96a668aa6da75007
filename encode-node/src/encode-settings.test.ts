import { test } from 'vitest';
import assert from 'node:assert/strict';
import type { RenditionSpec__Output } from '@kino/proto';
import { resolveHlsSettings } from './encode-settings.ts';
import { InvalidRequestError } from './errors.ts';

const spec: RenditionSpec__Output = {
  key: '360p',
  width: 640,
  height: 360,
  videoBitrateKbps: 800,
  audioBitrateKbps: 128,
  frameRate: 30,
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
const source = { frameRate: 25, pixelFormat: 'yuv420p', hasAudio: true, audioChannels: 2 };

test('keeps the source frame rate when the cap is above it; caps when below', () => {
  assert.deepEqual(
    [resolveHlsSettings(spec, source).frameRate, resolveHlsSettings(spec, source).capFrameRate],
    [25, false],
  );
  const capped = resolveHlsSettings({ ...spec, frameRate: 30 }, { ...source, frameRate: 60 });
  assert.deepEqual([capped.frameRate, capped.capFrameRate], [30, true]);
  const ntsc = resolveHlsSettings({ ...spec, frameRate: 30 }, { ...source, frameRate: 30000 / 1001 });
  assert.equal(ntsc.capFrameRate, false, '29.97 is not re-timed to 30');
  assert.equal(
    resolveHlsSettings({ ...spec, frameRate: 0 }, { ...source, frameRate: 60 }).capFrameRate,
    false,
    '0: no cap',
  );
});

test('odd sizes are rounded down to even; audio channels follow the source up to the codec limit', () => {
  const settings = resolveHlsSettings({ ...spec, width: 639, height: 361 }, { ...source, audioChannels: 6 });
  assert.deepEqual([settings.width, settings.height], [638, 360]);
  assert.equal(settings.audio?.channels, 2);
  assert.equal(resolveHlsSettings({ ...spec, audioCodec: 'ac3' }, { ...source, audioChannels: 6 }).audio?.channels, 6);
  assert.equal(resolveHlsSettings(spec, { ...source, audioChannels: 1 }).audio?.channels, 1);
});

test('no audio track when the source has none or the rendition asks for none', () => {
  assert.equal(resolveHlsSettings(spec, { ...source, hasAudio: false }).audio, undefined);
  assert.equal(resolveHlsSettings({ ...spec, audioBitrateKbps: 0 }, source).audio, undefined);
});

test('pixel formats by API name; x264 presets by x264 name (the orchestrator maps compression ratios)', () => {
  assert.equal(resolveHlsSettings({ ...spec, pixelFormat: 'yuv420p10b' }, source).pixelFormat, 'yuv420p10le');
  assert.equal(
    resolveHlsSettings({ ...spec, pixelFormat: 'autoDetect' }, { ...source, pixelFormat: 'yuv444p' }).pixelFormat,
    'yuv444p',
  );
  assert.equal(resolveHlsSettings({ ...spec, x264Preset: 'placebo' }, source).x264Preset, 'placebo');
  assert.equal(resolveHlsSettings({ ...spec, x264Preset: 'slow' }, source).x264Preset, 'slow');
  assert.throws(
    () => resolveHlsSettings({ ...spec, x264Preset: 'ultraslow' }, source),
    InvalidRequestError,
    'an API name is not an x264 preset',
  );
});

test('refuses what it cannot make', () => {
  for (const bad of [
    { width: 0 },
    { height: 10_000 },
    { videoBitrateKbps: 0 },
    { x264Preset: 'ludicrous' },
    { rateControlMode: 'crf' },
    { pixelFormat: 'rgb24' },
    { audioCodec: 'opus' },
    { segmentSeconds: 120 },
    { frameRate: -1 },
    // Left empty: the node fills in no defaults (the API applied them, the orchestrator sent them).
    { segmentSeconds: 0 },
    { rateControlMode: '' },
    { x264Preset: '' },
    { pixelFormat: '' },
    { audioCodec: '' },
  ] satisfies Partial<RenditionSpec__Output>[]) {
    assert.throws(() => resolveHlsSettings({ ...spec, ...bad }, source), InvalidRequestError, JSON.stringify(bad));
  }
});

test('an audio-only rendition (0x0, no video bitrate): the audio settings alone; no audio, or two-pass, is refused', () => {
  const audioOnly = { ...spec, key: '0p', width: 0, height: 0, videoBitrateKbps: 0, frameRate: 0 };
  const settings = resolveHlsSettings(audioOnly, { frameRate: 0, pixelFormat: '', hasAudio: true, audioChannels: 2 });
  assert.equal(settings.audioOnly, true);
  assert.deepEqual([settings.audio?.bitrateKbps, settings.audio?.channels, settings.twoPass], [128, 2, false]);
  assert.throws(
    () => resolveHlsSettings(audioOnly, { frameRate: 0, pixelFormat: '', hasAudio: false, audioChannels: 0 }),
    InvalidRequestError,
  );
  assert.throws(() => resolveHlsSettings({ ...audioOnly, twoPass: true }, { ...source, frameRate: 0 }), /not two-pass/);
  assert.equal(resolveHlsSettings(spec, source).audioOnly, undefined);
  // Only a spec without picture and video bitrate is audio-only: a 0x0 video rendition is still refused.
  assert.throws(() => resolveHlsSettings({ ...spec, width: 0, height: 0 }, source), /out of range/);
});

test('a rendition names its codec (none: H.264, as orchestrators before other codecs sent) and an H.264 rung its quantizer floor', () => {
  const source = { frameRate: 30, pixelFormat: 'yuv420p', hasAudio: true, audioChannels: 2 };
  assert.equal(resolveHlsSettings({ ...spec, videoCodec: '' }, source).videoCodec, 'h264');
  assert.equal(resolveHlsSettings({ ...spec, videoCodec: 'av1' }, source).videoCodec, 'av1');
  assert.equal(resolveHlsSettings({ ...spec, minQuantizer: 18 }, source).minQuantizer, 18);
  assert.equal(resolveHlsSettings(spec, source).minQuantizer, undefined, '0 is no floor');
  assert.throws(
    () => resolveHlsSettings({ ...spec, videoCodec: 'vp9' }, source),
    (e: unknown) => e instanceof InvalidRequestError && /video codec "vp9"/.test(e.message),
  );
  assert.throws(() => resolveHlsSettings({ ...spec, minQuantizer: 60 }, source), InvalidRequestError);
  assert.throws(
    () => resolveHlsSettings({ ...spec, videoCodec: 'av1', minQuantizer: 18 }, source),
    /for H.264 renditions/,
  );
});

test('every rendition of an HDR source is tone-mapped from its transfer; an SDR source, or a probe without a dynamic range, is not', () => {
  assert.equal(resolveHlsSettings(spec, { ...source, dynamicRange: 'hdr10' }).toneMapFrom, 'hdr10');
  assert.equal(
    resolveHlsSettings({ ...spec, videoCodec: 'hevc' }, { ...source, dynamicRange: 'hlg' }).toneMapFrom,
    'hlg',
  );
  assert.equal(resolveHlsSettings(spec, { ...source, dynamicRange: 'sdr' }).toneMapFrom, undefined);
  assert.equal(resolveHlsSettings(spec, { ...source, dynamicRange: '' }).toneMapFrom, undefined);
  assert.equal(resolveHlsSettings(spec, source).toneMapFrom, undefined);
  assert.throws(() => resolveHlsSettings(spec, { ...source, dynamicRange: 'dolby' }), InvalidRequestError);
});

test('an HDR rendition (10-bit HEVC of an HDR source, in its range) keeps the picture; anything else HDR is refused', () => {
  const hdrSpec = { ...spec, videoCodec: 'hevc', pixelFormat: 'yuv420p10b', dynamicRange: 'hlg' };
  const settings = resolveHlsSettings(hdrSpec, { ...source, dynamicRange: 'hlg' });
  assert.deepEqual([settings.hdr, settings.toneMapFrom, settings.pixelFormat], ['hlg', undefined, 'yuv420p10le']);
  for (const [wrong, from] of [
    [hdrSpec, 'hdr10'], // HLG made from PQ
    [hdrSpec, 'sdr'], // HDR made from SDR
    [{ ...hdrSpec, videoCodec: 'h264' }, 'hlg'], // HDR in H.264
    [{ ...hdrSpec, pixelFormat: 'yuv420p' }, 'hlg'], // HDR in 8 bits
    [{ ...hdrSpec, dynamicRange: 'dolby' }, 'hlg'],
  ] as const)
    assert.throws(() => resolveHlsSettings(wrong, { ...source, dynamicRange: from }), InvalidRequestError);
});

test("an alternate audio rendition takes its own stream of the source, with that stream's channels", () => {
  const alternate = { ...spec, key: '0p-a2', width: 0, height: 0, videoBitrateKbps: 0, frameRate: 0, audioStream: 1 };
  const dubbed = { ...source, audioChannels: 2, audioTracks: [{ channels: 2 }, { channels: 1 }] };
  const settings = resolveHlsSettings(alternate, dubbed);
  assert.deepEqual([settings.audioOnly, settings.audioStream, settings.audio?.channels], [true, 1, 1]);
  assert.throws(() => resolveHlsSettings({ ...alternate, audioStream: 2 }, dubbed), /audio stream 2.*has 2/);
  assert.equal(resolveHlsSettings({ ...alternate, audioStream: 0 }, dubbed).audioStream, undefined);
  // A track of a source with a picture lasts to the video's end; an audio-only source's sound is as it is.
  const pictured = { ...dubbed, width: 640, height: 360, durationSeconds: 8.04 };
  assert.equal(resolveHlsSettings(alternate, pictured).audioPadSeconds, 8.04);
  assert.equal(resolveHlsSettings(alternate, { ...pictured, width: 0, height: 0 }).audioPadSeconds, undefined);
  // A track added to a ready video (a file of sound alone) ends where the video does, its own length aside.
  const added = { ...alternate, audioStream: 0, audioEndSeconds: 8 };
  assert.equal(resolveHlsSettings(added, { ...dubbed, width: 0, height: 0, durationSeconds: 10 }).audioPadSeconds, 8);
});

test("a picture copy: the original rendition's picture settings, copied without sound in one pass; sound or no picture is refused", () => {
  const copy = { ...spec, key: '360p-v', audioBitrateKbps: 0, twoPass: true, pictureCopy: true };
  const settings = resolveHlsSettings(copy, source);
  assert.deepEqual(
    [settings.pictureCopy, settings.audio, settings.twoPass, settings.width, settings.segmentSeconds],
    [true, undefined, false, 640, 6],
  );
  assert.throws(() => resolveHlsSettings({ ...copy, audioBitrateKbps: 128 }, source), /no sound/);
  assert.throws(
    () => resolveHlsSettings({ ...copy, width: 0, height: 0, videoBitrateKbps: 0 }, source),
    /rendition with a picture/,
  );
});
