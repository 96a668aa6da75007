import { test } from 'vitest';
import assert from 'node:assert/strict';
import {
  aacAudioCodecs,
  audioEncodingOf,
  isAacAudioCodec,
  compressionRatios,
  pixelFormatOfX264,
  pixelFormats,
  x264PixelFormatFor,
  x264PixelFormats,
  x264PresetOfCompressionRatio,
} from './encoding.ts';

test('explicit pixel formats map to libx264 formats; 12-bit becomes 10-bit', () => {
  assert.equal(x264PixelFormatFor('yuv420p', 'yuv444p'), 'yuv420p');
  assert.equal(x264PixelFormatFor('yuv422p', 'yuv420p'), 'yuv422p');
  assert.equal(x264PixelFormatFor('yuv444p', 'yuv420p'), 'yuv444p');
  assert.equal(x264PixelFormatFor('yuv420p10b', 'yuv420p'), 'yuv420p10le');
  assert.equal(x264PixelFormatFor('yuv422p10b', 'yuv420p'), 'yuv422p10le');
  assert.equal(x264PixelFormatFor('yuv444p10b', 'yuv420p'), 'yuv444p10le');
  assert.equal(x264PixelFormatFor('yuv420p12b', 'yuv420p'), 'yuv420p10le');
  assert.equal(x264PixelFormatFor('yuv422p12b', 'yuv420p'), 'yuv422p10le');
  assert.equal(x264PixelFormatFor('yuv444p12b', 'yuv420p'), 'yuv444p10le');
  for (const format of pixelFormats) {
    assert.ok((x264PixelFormats as readonly string[]).includes(x264PixelFormatFor(format, 'rgb24')), format);
  }
});

test('autoDetect keeps what libx264 can write, else yuv420p', () => {
  assert.equal(x264PixelFormatFor('autoDetect', 'yuv422p10le'), 'yuv422p10le');
  assert.equal(x264PixelFormatFor('autoDetect', 'yuv444p'), 'yuv444p');
  assert.equal(x264PixelFormatFor('autoDetect', 'yuvj420p'), 'yuv420p');
  assert.equal(x264PixelFormatFor('autoDetect', 'yuv420p12le'), 'yuv420p10le');
  assert.equal(x264PixelFormatFor('autoDetect', 'rgb24'), 'yuv420p');
  assert.equal(x264PixelFormatFor('autoDetect', ''), 'yuv420p');
});

test('written pixel formats are reported under their API names', () => {
  assert.equal(pixelFormatOfX264.yuv420p10le, 'yuv420p10b');
  assert.equal(pixelFormatOfX264.yuv444p10le, 'yuv444p10b');
  assert.equal(pixelFormatOfX264.yuv422p, 'yuv422p');
});

test('compression ratios are x264 presets of the same name, ultraslow is veryslow', () => {
  for (const ratio of compressionRatios.filter((r) => r !== 'ultraslow'))
    assert.equal(x264PresetOfCompressionRatio[ratio], ratio);
  assert.equal(x264PresetOfCompressionRatio.ultraslow, 'veryslow');
});

test('audio codecs: HE-AAC is written as AAC-LC; AC-3 and E-AC-3 keep 5.1', () => {
  assert.deepEqual(audioEncodingOf.aac, { format: 'aac', encoder: 'aac', maxChannels: 2 });
  assert.equal(audioEncodingOf['aac-he'].encoder, 'aac');
  assert.equal(audioEncodingOf['aac-he-v2'].format, 'aac');
  assert.equal(audioEncodingOf.mp3.encoder, 'libmp3lame');
  assert.equal(audioEncodingOf.ac3.maxChannels, 6);
  assert.equal(audioEncodingOf.eac3.encoder, 'eac3');
});

test('the AAC codecs are those written as AAC: aac, aac-he, aac-he-v2', () => {
  assert.deepEqual(aacAudioCodecs, ['aac', 'aac-he', 'aac-he-v2']);
  assert.equal(isAacAudioCodec('aac-he-v2'), true);
  assert.equal(isAacAudioCodec('mp3'), false);
  assert.equal(isAacAudioCodec('opus'), false, 'a name off the wire that is no codec of ours');
});
