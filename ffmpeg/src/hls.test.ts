import { test } from 'vitest';
import assert from 'node:assert/strict';
import { hlsOutputFileNames, parseMediaPlaylist } from './hls.ts';

const playlist = `#EXTM3U
#EXT-X-VERSION:7
#EXT-X-TARGETDURATION:6
#EXT-X-MEDIA-SEQUENCE:0
#EXT-X-PLAYLIST-TYPE:VOD
#EXT-X-INDEPENDENT-SEGMENTS
#EXT-X-MAP:URI="init.mp4"
#EXTINF:6.000000,
seg-00000.m4s
#EXTINF:6.000000,
seg-00001.m4s
#EXTINF:1.000000,
seg-00002.m4s
#EXT-X-ENDLIST
`;

test('reads the segments of a rendition playlist', () => {
  const parsed = parseMediaPlaylist(playlist);
  assert.equal(parsed.targetDuration, 6);
  assert.equal(parsed.mapUri, 'init.mp4');
  assert.equal(parsed.endList, true);
  assert.deepEqual(parsed.segments, [
    { uri: 'seg-00000.m4s', durationSeconds: 6 },
    { uri: 'seg-00001.m4s', durationSeconds: 6 },
    { uri: 'seg-00002.m4s', durationSeconds: 1 },
  ]);
});

test('names every file an encode can write: one segment per started 6 s, plus a spare', () => {
  assert.deepEqual(hlsOutputFileNames(13), [
    'playlist.m3u8',
    'init.mp4',
    'seg-00000.m4s',
    'seg-00001.m4s',
    'seg-00002.m4s',
    'seg-00003.m4s',
  ]);
  assert.equal(hlsOutputFileNames(12).length, 2 + 2 + 1);
  assert.equal(hlsOutputFileNames(0.5).length, 2 + 1 + 1);
});
