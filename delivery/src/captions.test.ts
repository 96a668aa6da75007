import { test } from 'vitest';
import assert from 'node:assert/strict';
import { objectKeys } from '@kino/proto/contract';
import { CaptionFiles } from './captions.ts';
import { contentEtag, type CachedObject, type UncachedObject } from './object-cache.ts';
import { DeliveryError } from './errors.ts';
import type { PlayableVideo } from './video-catalog.ts';

const track = { language: 'en', label: 'English', isDefault: true, storageKey: 'videos/vid_1/captions/en/r1.vtt' };
const video: PlayableVideo = {
  id: 'vid_1',
  orgId: 'org_1',
  envId: 'env_1',
  name: 'clip',
  width: null,
  height: null,
  allowPublicAccess: true,
  thumbnailKey: null,
  storyboardKey: null,
  clipMedia: null,
  segmentsPending: false,
  masterKey: null,
  live: false,
  audioKey: null,
  renditions: new Map([
    ['360p', { key: '360p', height: 360, videoCodec: 'h264', segmentCount: 3, bandwidth: 1, averageBandwidth: 1 }],
    ['720p', { key: '720p', height: 720, videoCodec: 'h264', segmentCount: 3, bandwidth: 1, averageBandwidth: 1 }],
  ]),
  addedAudio: [],
  captions: new Map([['en', track]]),
};

function cacheOf(objects: Record<string, string>) {
  const reads: string[] = [];
  const uncachedReads: string[] = [];
  return {
    reads,
    uncachedReads,
    async get(key: string): Promise<CachedObject | undefined> {
      reads.push(key);
      const text = objects[key];
      if (text === undefined) return undefined;
      const data = Buffer.from(text);
      return { key, path: `/nowhere/${key}`, size: data.length, etag: contentEtag(data), data };
    },
    async getUncached(key: string): Promise<UncachedObject | undefined> {
      uncachedReads.push(key);
      const text = objects[key];
      if (text === undefined) return undefined;
      const data = Buffer.from(text);
      return { key, size: data.length, etag: contentEtag(data), data };
    },
  };
}

const objects = {
  [track.storageKey]: 'WEBVTT\n\n00:00:05.000 --> 00:00:07.000\nacross\n',
  [objectKeys.renditionPlaylist('vid_1', 360)]:
    '#EXTM3U\n#EXTINF:6.000000,\nseg-00000.m4s\n#EXTINF:6.000000,\nseg-00001.m4s\n#EXTINF:1.000000,\nseg-00002.m4s\n#EXT-X-ENDLIST\n',
};

test("the subtitles playlist follows the lowest rendition's segments and carries the token", async () => {
  const cache = cacheOf(objects);
  const files = new CaptionFiles(cache);
  const playlist = await files.get(video, track, { type: 'subtitles_playlist', language: 'en' }, 'T.K.N');
  assert.equal(playlist.contentType, 'application/vnd.apple.mpegurl');
  const text = playlist.data.toString();
  assert.deepEqual(
    [...text.matchAll(/^#EXTINF:(.+),$/gm)].map((m) => m[1]),
    ['6.000', '6.000', '1.000'],
  );
  assert.match(text, /^subtitles-en\/seg-00002\.vtt\?token=T\.K\.N$/m);
  assert.ok(cache.reads.includes(objectKeys.renditionPlaylist('vid_1', 360)), 'the lowest rendition');
});

test('segments are served by index, the whole file as stored; past the last segment is 404', async () => {
  const cache = cacheOf(objects);
  const files = new CaptionFiles(cache);
  const segment = (index: number) =>
    files.get(video, track, { type: 'subtitles_segment', language: 'en', index }, null);
  assert.match((await segment(0)).data.toString(), /across/);
  assert.match((await segment(1)).data.toString(), /across/);
  assert.doesNotMatch((await segment(2)).data.toString(), /across/);
  assert.equal((await segment(0)).contentType, 'text/vtt; charset=utf-8');
  await assert.rejects(segment(3), (error: unknown) => error instanceof DeliveryError && error.status === 404);
  const whole = await files.get(video, track, { type: 'captions_file', language: 'en' }, 'ignored');
  assert.equal(whole.data.toString(), objects[track.storageKey]);
});

test('a video still being made has its segment grid read past the cache (its playlists are written again once complete)', async () => {
  const cache = cacheOf(objects);
  const files = new CaptionFiles(cache);
  const grid = objectKeys.renditionPlaylist('vid_1', 360);
  await files.get({ ...video, segmentsPending: true }, track, { type: 'subtitles_playlist', language: 'en' }, null);
  assert.deepEqual(cache.uncachedReads, [grid]);
  assert.ok(!cache.reads.includes(grid), 'not through the cache');
  assert.ok(
    cache.reads.includes(track.storageKey),
    "the track's file is cached as always (a new key for every upload)",
  );
  await files.get(video, track, { type: 'subtitles_playlist', language: 'en' }, null);
  assert.ok(cache.reads.includes(grid), 'complete: cached');
});
