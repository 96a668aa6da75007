import { test } from 'vitest';
import assert from 'node:assert/strict';
import {
  apiNameOfPixelFormat,
  apiPixelFormats,
  audioEncodingFor,
  compressionRatios,
  x264PixelFormatFor,
  x264PixelFormats,
  x264PresetFor,
} from './formats.ts';

test('maps every API pixel format onto one libx264 supports; 12-bit becomes 10-bit of the same chroma', () => {
  assert.equal(x264PixelFormatFor('yuv420p', 'yuv444p'), 'yuv420p');
  assert.equal(x264PixelFormatFor('yuv422p', 'yuv420p'), 'yuv422p');
  assert.equal(x264PixelFormatFor('yuv444p', 'yuv420p'), 'yuv444p');
  assert.equal(x264PixelFormatFor('yuv420p10b', 'yuv420p'), 'yuv420p10le');
  assert.equal(x264PixelFormatFor('yuv422p10b', 'yuv420p'), 'yuv422p10le');
  assert.equal(x264PixelFormatFor('yuv444p10b', 'yuv420p'), 'yuv444p10le');
  assert.equal(x264PixelFormatFor('yuv420p12b', 'yuv420p'), 'yuv420p10le');
  assert.equal(x264PixelFormatFor('yuv422p12b', 'yuv420p'), 'yuv422p10le');
  assert.equal(x264PixelFormatFor('yuv444p12b', 'yuv420p'), 'yuv444p10le');
  for (const format of apiPixelFormats) {
    assert.ok((x264PixelFormats as readonly string[]).includes(x264PixelFormatFor(format, 'rgb24')), format);
  }
});

test('autoDetect keeps the source format when libx264 can write it, else yuv420p', () => {
  assert.equal(x264PixelFormatFor('autoDetect', 'yuv422p10le'), 'yuv422p10le');
  assert.equal(x264PixelFormatFor('autoDetect', 'yuv444p'), 'yuv444p');
  assert.equal(x264PixelFormatFor('autoDetect', 'yuvj420p'), 'yuv420p');
  assert.equal(x264PixelFormatFor('autoDetect', 'yuv420p12le'), 'yuv420p10le');
  assert.equal(x264PixelFormatFor('autoDetect', 'rgb24'), 'yuv420p');
  assert.equal(x264PixelFormatFor('autoDetect', ''), 'yuv420p');
});

test('reports pixel formats by their API names', () => {
  assert.equal(apiNameOfPixelFormat('yuv420p10le'), 'yuv420p10b');
  assert.equal(apiNameOfPixelFormat('yuv444p10le'), 'yuv444p10b');
  assert.equal(apiNameOfPixelFormat('yuv422p'), 'yuv422p');
});

test('compression ratios are x264 presets, ultraslow is placebo', () => {
  for (const ratio of compressionRatios.filter((r) => r !== 'ultraslow')) assert.equal(x264PresetFor(ratio), ratio);
  assert.equal(x264PresetFor('ultraslow'), 'placebo');
  assert.equal(x264PresetFor('slow'), 'slow');
  assert.equal(x264PresetFor('warp-speed'), undefined);
});

test('audio codecs: aac-he and aac-he-v2 are written as AAC-LC', () => {
  assert.deepEqual(audioEncodingFor('aac'), { format: 'aac', encoder: 'aac', maxChannels: 2 });
  assert.equal(audioEncodingFor('aac-he')?.encoder, 'aac');
  assert.equal(audioEncodingFor('aac-he-v2')?.format, 'aac');
  assert.equal(audioEncodingFor('mp3')?.encoder, 'libmp3lame');
  assert.equal(audioEncodingFor('ac3')?.maxChannels, 6);
  assert.equal(audioEncodingFor('eac3')?.encoder, 'eac3');
  assert.equal(audioEncodingFor('opus'), undefined);
});
