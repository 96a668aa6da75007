import { test } from 'vitest';
import assert from 'node:assert/strict';
import { familyUriOf } from './paths.ts';
import { resolveKey, rewritePlaylist } from './playlist.ts';

const master = `#EXTM3U
#EXT-X-VERSION:7
#EXT-X-INDEPENDENT-SEGMENTS
#EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=426x240,CODECS="avc1.64000d,mp4a.40.2"
240p/playlist.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=600000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2"
360p/playlist.m3u8
`;

const media = `#EXTM3U
#EXT-X-VERSION:7
#EXT-X-TARGETDURATION:6
#EXT-X-MEDIA-SEQUENCE:0
#EXT-X-PLAYLIST-TYPE:VOD
#EXT-X-MAP:URI="init.mp4"
#EXTINF:6.000000,
seg-00000.m4s
#EXTINF:1.500000,
seg-00001.m4s
#EXT-X-ENDLIST
`;

const rewriteFor = (family: 'public' | 'private' | 'direct', text: string, key: string, token?: string) =>
  rewritePlaylist(text, key, (target) => {
    const uri = familyUriOf(family, 'vid_1', target);
    return uri && (token ? `${uri}?token=${token}` : uri);
  });

test("a master playlist points at the family's rendition playlists", () => {
  const out = rewriteFor('public', master, 'videos/vid_1/hls/master.m3u8');
  assert.deepEqual(
    out.split('\n').filter((l) => l && !l.startsWith('#')),
    ['video-240p.m3u8', 'video-360p.m3u8'],
  );
  assert.ok(out.includes('CODECS="avc1.64000d,mp4a.40.2"'), 'tags are kept');
  const direct = rewriteFor('direct', master, 'videos/vid_1/hls/master.m3u8');
  assert.deepEqual(
    direct.split('\n').filter((l) => l && !l.startsWith('#')),
    ['240p.m3u8', '360p.m3u8'],
  );
});

test('a private media playlist carries the token on the init and every segment', () => {
  const out = rewriteFor('private', media, 'videos/vid_1/hls/360p/playlist.m3u8', 'T.O.K');
  assert.ok(out.includes('#EXT-X-MAP:URI="video-360p/init.m4s?token=T.O.K"'));
  assert.deepEqual(
    out.split('\n').filter((l) => l && !l.startsWith('#')),
    ['video-360p/seg-00000.m4s?token=T.O.K', 'video-360p/seg-00001.m4s?token=T.O.K'],
  );
  assert.ok(out.includes('#EXT-X-ENDLIST'));
});

test('URIs that leave the video, and absolute URLs, are left alone', () => {
  const text = '#EXTM3U\n../../other/hls/360p/playlist.m3u8\nhttps://cdn.example/x.m3u8\n';
  const out = rewriteFor('public', text, 'videos/vid_1/hls/master.m3u8');
  assert.equal(out, text);
  assert.equal(resolveKey('videos/v/hls/360p/playlist.m3u8', '../240p/init.mp4'), 'videos/v/hls/240p/init.mp4');
  assert.equal(resolveKey('videos/v/hls/master.m3u8', '//evil.example/x'), undefined);
});

test('a live playlist’s parts and preload hint carry the family’s names and the token, as its segments do', () => {
  const live = `#EXTM3U
#EXT-X-PART-INF:PART-TARGET=1.000
#EXT-X-MAP:URI="init.mp4"
#EXT-X-PROGRAM-DATE-TIME:2026-11-29T05:00:00.000Z
#EXT-X-PART:DURATION=1.000000,URI="part-00000.m4s",INDEPENDENT=YES
#EXTINF:1.000000,
seg-00000.m4s
#EXT-X-PART:DURATION=1.000000,URI="part-00001.m4s",INDEPENDENT=YES
#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part-00002.m4s"
`;
  const out = rewritePlaylist(live, 'videos/v/hls/720p/playlist.m3u8', (key) => {
    const uri = familyUriOf('private', 'v', key);
    return uri && `${uri}?token=T`;
  });
  assert.match(out, /#EXT-X-PART:DURATION=1.000000,URI="video-720p\/part-00000.m4s\?token=T",INDEPENDENT=YES/);
  assert.match(out, /\nvideo-720p\/seg-00000.m4s\?token=T\n/);
  assert.match(out, /#EXT-X-PRELOAD-HINT:TYPE=PART,URI="video-720p\/part-00002.m4s\?token=T"/);
});
