import { test } from 'vitest';
import assert from 'node:assert/strict';
import { parseStoryboard, tileAt } from './storyboard.ts';

// As delivery serves a private video's storyboard: the token in each sheet's query (routes/storyboards.ts).
const vtt = `WEBVTT

00:00:00.000 --> 00:00:05.000
storyboard-0.jpg?token=x#xywh=0,0,160,90

00:00:05.000 --> 00:00:10.000
storyboard-0.jpg?token=x#xywh=160,0,160,90

00:00:10.000 --> 01:00:13.500
storyboard-1.jpg?token=x#xywh=0,90,160,90
`;

test('each cue is a tile of its sheet, resolved against the VTT URL', () => {
  const tiles = parseStoryboard(vtt, 'https://d.example/v1/private/vid_a/storyboard.vtt?token=x');
  assert.deepEqual(tiles[1], {
    start: 5,
    end: 10,
    sheet: 'https://d.example/v1/private/vid_a/storyboard-0.jpg?token=x',
    x: 160,
    y: 0,
    width: 160,
    height: 90,
  });
  assert.equal(tiles[2]!.end, 3613.5);
  assert.equal(tiles.length, 3);
  assert.equal(tileAt(tiles, 7.2)!.x, 160);
  assert.equal(tileAt(tiles, 4000)!.y, 90);
  assert.equal(tileAt([], 1), undefined);
});
