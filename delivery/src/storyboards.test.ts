import { test } from 'vitest';
import assert from 'node:assert/strict';
import { rewriteStoryboardVtt } from './storyboards.ts';

const vtt = [
  'WEBVTT',
  '',
  '00:00:00.000 --> 00:00:05.000',
  'storyboard-0.jpg#xywh=0,0,160,90',
  '',
  '00:00:05.000 --> 00:00:07.000',
  'storyboard-0.jpg#xywh=160,0,160,90',
  '',
].join('\n');

test('the token goes after each sheet URI, before its fragment; header and timings stay', () => {
  const out = rewriteStoryboardVtt(vtt, '?token=abc');
  assert.deepEqual(out.split('\n'), [
    'WEBVTT',
    '',
    '00:00:00.000 --> 00:00:05.000',
    'storyboard-0.jpg?token=abc#xywh=0,0,160,90',
    '',
    '00:00:05.000 --> 00:00:07.000',
    'storyboard-0.jpg?token=abc#xywh=160,0,160,90',
    '',
  ]);
});

test('without a token the VTT is served as stored', () => {
  assert.equal(rewriteStoryboardVtt(vtt, ''), vtt);
});
