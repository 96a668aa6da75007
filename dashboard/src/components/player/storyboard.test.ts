import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
// The player's parser, which the thumbnail picker uses too (one reading of the storyboard VTT).
import { parseStoryboard, tileAt } from '@kino/player/storyboard';

const vtt = `WEBVTT

00:00:00.000 --> 00:00:05.000
storyboard-0.jpg?token=abc#xywh=0,0,160,90

00:00:05.000 --> 00:00:10.000
storyboard-0.jpg?token=abc#xywh=160,0,160,90

00:08:20.000 --> 00:08:23.500
storyboard-1.jpg?token=abc#xywh=0,0,160,90
`;

describe('parseStoryboard, as the thumbnail picker reads it', () => {
  const tiles = parseStoryboard(vtt, 'http://127.0.0.1:7090/v1/private/vid1/storyboard.vtt?token=abc');

  it('reads each cue: its interval, its sheet resolved against the VTT, and the tile in it', () => {
    assert.equal(tiles.length, 3);
    assert.deepEqual(tiles[1], {
      start: 5,
      end: 10,
      sheet: 'http://127.0.0.1:7090/v1/private/vid1/storyboard-0.jpg?token=abc',
      x: 160,
      y: 0,
      width: 160,
      height: 90,
    });
    assert.equal(tiles[2]!.start, 500);
    assert.equal(tiles[2]!.end, 503.5);
  });

  it('finds the tile of an instant', () => {
    assert.equal(tileAt(tiles, 0)!.x, 0);
    assert.equal(tileAt(tiles, 7.2)!.x, 160);
    assert.equal(tileAt(tiles, 501)!.sheet.includes('storyboard-1.jpg'), true);
    assert.equal(tileAt([], 3), undefined);
  });
});
