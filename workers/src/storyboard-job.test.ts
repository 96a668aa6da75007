import { test } from 'vitest';
import assert from 'node:assert/strict';
import { planStoryboard } from '@kino/proto/contract';
import { storyboardVtt } from './storyboard-job.ts';

test('the VTT: a cue per tile, back to back from 0 to the end, row by row across sheets', () => {
  const vtt = storyboardVtt(planStoryboard(13.04), { width: 160, height: 90 }, 13.04);
  assert.equal(
    vtt,
    [
      'WEBVTT', '',
      '00:00:00.000 --> 00:00:05.000', 'storyboard-0.jpg#xywh=0,0,160,90', '',
      '00:00:05.000 --> 00:00:10.000', 'storyboard-0.jpg#xywh=160,0,160,90', '',
      '00:00:10.000 --> 00:00:13.040', 'storyboard-0.jpg#xywh=320,0,160,90', '',
    ].join('\n'),
  );
  // 505 s: 101 tiles, the 101st opens the second sheet at its top left; hours are written.
  const long = storyboardVtt(planStoryboard(505), { width: 160, height: 90 }, 505).split('\n');
  assert.ok(long.includes('storyboard-0.jpg#xywh=1440,810,160,90'));
  assert.deepEqual(long.slice(-3), ['00:08:20.000 --> 00:08:25.000', 'storyboard-1.jpg#xywh=0,0,160,90', '']);
  assert.ok(storyboardVtt(planStoryboard(4000), { width: 160, height: 90 }, 4000).includes('01:06:35.000 --> 01:06:40.000'));
});
