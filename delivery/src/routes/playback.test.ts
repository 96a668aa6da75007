import { test } from 'vitest';
import assert from 'node:assert/strict';
import { DeliveryError } from '../errors.ts';
import { resolveResource } from './playback.ts';

const video = {
  id: 'vid_1',
  // Lowest first, as the catalog orders them (video-catalog.ts).
  renditions: new Map([
    ['360p', { key: '360p', height: 360, videoCodec: 'h264' as const, segmentCount: 4 }],
    ['720p', { key: '720p', height: 720, videoCodec: 'h264' as const, segmentCount: 4 }],
    // Still being made: its count is not known yet.
    ['1080p', { key: '1080p', height: 1080, videoCodec: 'h264' as const, segmentCount: 0 }],
  ]),
};

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof DeliveryError) return `${error.status} ${error.code}`;
    throw error;
  }
  return 'no error';
};

test("resolveResource: `video/init.m4s` is the lowest rendition's init; a named one is kept", () => {
  assert.deepEqual(resolveResource(video, { type: 'init', quality: null }), { type: 'init', quality: '360p' });
  assert.deepEqual(resolveResource(video, { type: 'init', quality: '720p' }), { type: 'init', quality: '720p' });
  assert.deepEqual(resolveResource(video, { type: 'segment', quality: '720p', index: 3 }), {
    type: 'segment',
    quality: '720p',
    index: 3,
  });
});

test("resolveResource: a rendition the video lacks, or a segment past its rendition's count, is refused; an unknown count is not", () => {
  assert.equal(
    refusal(() => resolveResource(video, { type: 'rendition', quality: '480p' })),
    '404 rendition_not_found',
  );
  assert.equal(
    refusal(() => resolveResource(video, { type: 'download', quality: '480p' })),
    '404 rendition_not_found',
  );
  assert.equal(
    refusal(() => resolveResource(video, { type: 'segment', quality: '720p', index: 4 })),
    '404 segment_not_found',
  );
  assert.equal(
    refusal(() => resolveResource(video, { type: 'segment', quality: '1080p', index: 40 })),
    'no error',
  );
  assert.equal(
    refusal(() => resolveResource({ id: 'vid_2', renditions: new Map() }, { type: 'init', quality: null })),
    '404 rendition_not_found',
  );
});

test("resolveResource: files that are not a rendition's pass as they are, whatever the renditions", () => {
  const none = { id: 'vid_2', renditions: new Map() };
  for (const resource of [
    { type: 'master' },
    { type: 'storyboard' },
    { type: 'storyboard_sheet', index: 2 },
    { type: 'audio_download' },
    { type: 'subtitles_playlist', language: 'en' },
    { type: 'subtitles_segment', language: 'en', index: 1 },
    { type: 'captions_file', language: 'en' },
  ] as const) {
    assert.equal(resolveResource(none, resource), resource, resource.type);
  }
});
