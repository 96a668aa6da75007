import { test } from 'vitest';
import assert from 'node:assert/strict';
import { DeliveryError } from '../errors.ts';
import { audioMediaLine, type MasterAudio } from '@kino/proto/contract';
import { resolveResource, withAddedAudio } from './playback.ts';

const video = {
  id: 'vid_1',
  // Lowest first, as the catalog orders them (video-catalog.ts).
  renditions: new Map([
    [
      '360p',
      { key: '360p', height: 360, videoCodec: 'h264' as const, segmentCount: 4, bandwidth: 1, averageBandwidth: 1 },
    ],
    [
      '720p',
      { key: '720p', height: 720, videoCodec: 'h264' as const, segmentCount: 4, bandwidth: 1, averageBandwidth: 1 },
    ],
    // Still being made: its count is not known yet.
    [
      '1080p',
      { key: '1080p', height: 1080, videoCodec: 'h264' as const, segmentCount: 0, bandwidth: 1, averageBandwidth: 1 },
    ],
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

test('withAddedAudio: an added track joins the stored group, the rates raised above the renditions it names', () => {
  const audio = (key: string, language: string, isDefault: boolean, bandwidth: number): MasterAudio => ({
    key,
    language,
    name: language,
    isDefault,
    channels: 2,
    codecs: 'mp4a.40.2',
    bandwidth,
    averageBandwidth: bandwidth,
  });
  const rendition = (key: string, bandwidth: number) =>
    [
      key,
      { key, height: 0, videoCodec: 'h264' as const, segmentCount: 2, bandwidth, averageBandwidth: bandwidth },
    ] as const;
  // The stored group names 0p-a1 and 0p-a2; 0p-a3 is a replaced added track's, which it does not name.
  const renditions = new Map([rendition('0p-a1', 140_000), rendition('0p-a2', 150_000), rendition('0p-a3', 900_000)]);
  const master = [
    '#EXTM3U',
    audioMediaLine(audio('0p-a1', 'en', true, 0)),
    audioMediaLine(audio('0p-a2', 'es', false, 0)),
    '#EXT-X-STREAM-INF:BANDWIDTH=400000,AVERAGE-BANDWIDTH=300000,AUDIO="audio"',
    '90p/playlist.m3u8',
  ].join('\n');
  const out = withAddedAudio({ renditions }, master, [audio('0p-a4', 'fr', false, 160_000)]);
  assert.match(out, /#EXT-X-STREAM-INF:BANDWIDTH=410000,AVERAGE-BANDWIDTH=310000,/);
  assert.match(
    out,
    /LANGUAGE="es".*\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",LANGUAGE="fr",.*URI="0p-a4\/playlist.m3u8"\n#EXT-X-STREAM-INF/,
  );
  assert.equal(withAddedAudio({ renditions }, master, []), master);
});
