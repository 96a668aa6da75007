import { test } from 'vitest';
import assert from 'node:assert/strict';
import { parseMediaPlaylist, withMovieDuration } from './mp4-download.ts';

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

/** ftyp + moov(mvhd v0 with timescale 1000, mvex(trex)). */
function init(): Buffer {
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1000, 12);
  return Buffer.concat([
    box('ftyp', Buffer.from('iso6')),
    box('moov', box('mvhd', mvhd), box('mvex', box('trex', Buffer.alloc(24)))),
  ]);
}

test('a fragmented init gains mehd with the duration in the movie timescale; moov and mvex grow by it', () => {
  const before = init();
  const after = withMovieDuration(before, 13.0235);
  assert.equal(after.length, before.length + 16);
  const moov = after.indexOf('moov') - 4;
  assert.equal(after.readUInt32BE(moov), before.readUInt32BE(moov) + 16);
  const mehd = after.indexOf('mehd') - 4;
  assert.equal(after.readUInt32BE(mehd), 16);
  assert.equal(after.readUInt32BE(mehd + 12), 13024);
  // Set again: patched in place, no second box.
  const again = withMovieDuration(after, 7);
  assert.equal(again.length, after.length);
  assert.equal(again.readUInt32BE(mehd + 12), 7000);
});

test('an init without mvex is refused', () => {
  const mvhd = Buffer.alloc(100);
  assert.throws(() => withMovieDuration(box('moov', box('mvhd', mvhd)), 1), /not fragmented/);
  assert.throws(() => withMovieDuration(box('ftyp', Buffer.alloc(4)), 1), /no moov/);
});

test('a media playlist gives its segment keys in order and their total duration', () => {
  const text = [
    '#EXTM3U',
    '#EXT-X-MAP:URI="init.mp4"',
    '#EXTINF:6.000000,',
    'seg-00000.m4s',
    '#EXTINF:1.500000,',
    'seg-00001.m4s',
    '#EXT-X-ENDLIST',
  ].join('\n');
  assert.deepEqual(parseMediaPlaylist(text, 'videos/v/hls/240p/playlist.m3u8'), {
    segments: ['videos/v/hls/240p/seg-00000.m4s', 'videos/v/hls/240p/seg-00001.m4s'],
    durationSeconds: 7.5,
  });
});
