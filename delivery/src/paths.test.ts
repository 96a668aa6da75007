import { describe, it, test } from 'vitest';
import assert from 'node:assert/strict';
import { familyUriOf, mediaKeyOf, parseDeliveryPath, qualityHeight, storageKeyOf } from './paths.ts';

test('public family: master, renditions, init (per rendition and the lowest), segments', () => {
  const base = '/v1/public/org_1/env_2/vid_3';
  const at = (rest: string) => parseDeliveryPath(`${base}/${rest}`);
  const expectPublic = { kind: 'playback', family: 'public', orgId: 'org_1', envId: 'env_2', videoId: 'vid_3' };
  assert.deepEqual(at('master.m3u8'), { ...expectPublic, resource: { type: 'master' } });
  assert.deepEqual(at('video-720p.m3u8'), { ...expectPublic, resource: { type: 'rendition', quality: '720p' } });
  assert.deepEqual(at('video/init.m4s'), { ...expectPublic, resource: { type: 'init', quality: null } });
  assert.deepEqual(at('video-240p/init.m4s'), { ...expectPublic, resource: { type: 'init', quality: '240p' } });
  assert.deepEqual(at('video-240p/seg-00012.m4s'), {
    ...expectPublic,
    resource: { type: 'segment', quality: '240p', index: 12 },
  });
  for (const bad of [
    'master.m3u',
    'video-720.m3u8',
    'video-720p/seg-1.ts',
    'video-720p/../x',
    'video-720p/init.mp4',
    '',
  ]) {
    assert.equal(at(bad), undefined, bad);
  }
});

test('private family mirrors the public one under /v1/private/{id}', () => {
  assert.deepEqual(parseDeliveryPath('/v1/private/vid_3/master.m3u8'), {
    kind: 'playback',
    family: 'private',
    videoId: 'vid_3',
    resource: { type: 'master' },
  });
  assert.deepEqual(parseDeliveryPath('/v1/private/vid_3/video-360p/seg-00000.m4s')?.kind, 'playback');
  assert.equal(parseDeliveryPath('/v1/private/vid_3'), undefined);
});

test('direct patterns, with .ts and bare-number segment aliases', () => {
  const direct = (rest: string) => parseDeliveryPath(`/vid_3/${rest}`);
  assert.deepEqual(direct('master.m3u8'), {
    kind: 'playback',
    family: 'direct',
    videoId: 'vid_3',
    resource: { type: 'master' },
  });
  assert.deepEqual(direct('720p.m3u8')?.kind === 'playback' && direct('720p.m3u8'), {
    kind: 'playback',
    family: 'direct',
    videoId: 'vid_3',
    resource: { type: 'rendition', quality: '720p' },
  });
  assert.deepEqual(direct('720p/init.mp4'), {
    kind: 'playback',
    family: 'direct',
    videoId: 'vid_3',
    resource: { type: 'init', quality: '720p' },
  });
  for (const name of ['seg-00004.m4s', '4.ts', 'seg-4.ts', '00004.m4s']) {
    assert.deepEqual(
      direct(`720p/${name}`),
      {
        kind: 'playback',
        family: 'direct',
        videoId: 'vid_3',
        resource: { type: 'segment', quality: '720p', index: 4 },
      },
      name,
    );
  }
  assert.equal(direct('720p/seg-4.mp4'), undefined);
  assert.equal(parseDeliveryPath('/v1/master.m3u8'), undefined, 'v1 is never a video id');
});

test('thumbnails: sizes 16..3840 on each edge, in JPEG, PNG or WebP', () => {
  assert.deepEqual(parseDeliveryPath('/t/vid_3/640x360.jpg'), {
    kind: 'thumbnail',
    videoId: 'vid_3',
    width: 640,
    height: 360,
    format: 'jpg',
  });
  assert.deepEqual(parseDeliveryPath('/t/vid_3/16x3840.png'), {
    kind: 'thumbnail',
    videoId: 'vid_3',
    width: 16,
    height: 3840,
    format: 'png',
  });
  assert.deepEqual(parseDeliveryPath('/t/vid_3/c12/320x180.webp'), {
    kind: 'thumbnail',
    videoId: 'vid_3',
    width: 320,
    height: 180,
    format: 'webp',
    custom: 'c12',
  });
  assert.deepEqual(parseDeliveryPath('/t/vid_3/15x100.jpg'), {
    kind: 'invalid_thumbnail_size',
    width: 15,
    height: 100,
  });
  assert.deepEqual(parseDeliveryPath('/t/vid_3/100x3841.jpg'), {
    kind: 'invalid_thumbnail_size',
    width: 100,
    height: 3841,
  });
  assert.equal(parseDeliveryPath('/t/vid_3/100x100.gif'), undefined);
  assert.deepEqual(parseDeliveryPath('/health'), { kind: 'health' });
});

test('storage keys and family URIs map both ways onto the one layout', () => {
  assert.equal(storageKeyOf('v', { type: 'master' }), 'videos/v/hls/master.m3u8');
  assert.equal(storageKeyOf('v', { type: 'rendition', quality: '720p' }), 'videos/v/hls/720p/playlist.m3u8');
  assert.equal(storageKeyOf('v', { type: 'init', quality: '720p' }), 'videos/v/hls/720p/init.mp4');
  assert.equal(storageKeyOf('v', { type: 'segment', quality: '720p', index: 3 }), 'videos/v/hls/720p/seg-00003.m4s');
  assert.equal(familyUriOf('public', 'v', 'videos/v/hls/720p/playlist.m3u8'), 'video-720p.m3u8');
  assert.equal(familyUriOf('public', 'v', 'videos/v/hls/720p/boot-1.m4s'), 'video-720p/boot-1.m4s');
  assert.equal(familyUriOf('direct', 'v', 'videos/v/hls/720p/boot-2.m4s'), '720p/boot-2.m4s');
  for (const path of ['/v1/private/v/video-720p/boot-1.m4s', '/v/720p/boot-1.m4s']) {
    const route = parseDeliveryPath(path);
    assert.deepEqual(route?.kind === 'playback' && route.resource, {
      type: 'segment',
      quality: '720p',
      index: 0,
      part: 1,
    });
    assert.equal(
      storageKeyOf('v', (route as { resource: Parameters<typeof storageKeyOf>[1] }).resource),
      'videos/v/hls/720p/boot-1.m4s',
    );
  }
  assert.equal(parseDeliveryPath('/v/720p/boot-3.m4s'), undefined, 'three bootstrap segments');
  // A broadcast's parts (issue 56), both ways.
  for (const [family, uri] of [
    ['private', 'video-720p/part-00012.m4s'],
    ['direct', '720p/part-00012.m4s'],
  ] as const) {
    assert.equal(familyUriOf(family, 'v', 'videos/v/hls/720p/part-00012.m4s'), uri);
    const route = parseDeliveryPath(family === 'direct' ? `/v/${uri}` : `/v1/private/v/${uri}`);
    const resource = route?.kind === 'playback' ? route.resource : undefined;
    assert.deepEqual(resource, { type: 'live_part', quality: '720p', index: 12 });
    assert.equal(storageKeyOf('v', resource!), 'videos/v/hls/720p/part-00012.m4s');
  }
  assert.equal(familyUriOf('private', 'v', 'videos/v/hls/720p/init.mp4'), 'video-720p/init.m4s');
  assert.equal(familyUriOf('private', 'v', 'videos/v/hls/720p/seg-00003.m4s'), 'video-720p/seg-00003.m4s');
  assert.equal(familyUriOf('direct', 'v', 'videos/v/hls/720p/playlist.m3u8'), '720p.m3u8');
  assert.equal(familyUriOf('direct', 'v', 'videos/v/hls/720p/init.mp4'), '720p/init.mp4');
  assert.equal(familyUriOf('direct', 'v', 'videos/v/hls/720p/seg-00003.m4s'), '720p/seg-00003.m4s');
  assert.equal(familyUriOf('direct', 'v', 'videos/other/hls/720p/seg-00003.m4s'), undefined, 'never another video');
  assert.equal(familyUriOf('direct', 'v', 'videos/v/thumbs/a.jpg'), undefined);
});

test('share link paths: the watch page, the player script and the /v1 names under a link', () => {
  assert.deepEqual(parseDeliveryPath('/v1/share/shr_abc/master.m3u8'), {
    kind: 'share',
    linkId: 'shr_abc',
    resource: { type: 'master' },
  });
  assert.deepEqual(parseDeliveryPath('/v1/share/shr_abc/video-720p/seg-00003.m4s'), {
    kind: 'share',
    linkId: 'shr_abc',
    resource: { type: 'segment', quality: '720p', index: 3 },
  });
  assert.deepEqual(parseDeliveryPath('/v1/share/shr_abc'), { kind: 'share_page', linkId: 'shr_abc' });
  assert.deepEqual(parseDeliveryPath('/v1/assets/kino-player.js'), {
    kind: 'player_asset',
    path: '/v1/assets/kino-player.js',
  });
  assert.deepEqual(parseDeliveryPath('/v1/assets/hls.min.js'), undefined, 'hls.js is inside the player bundle');
  assert.deepEqual(parseDeliveryPath('/v1/assets/other.js'), undefined);
  assert.deepEqual(parseDeliveryPath('/embed/vid_1'), { kind: 'embed_page', videoId: 'vid_1' });
  assert.deepEqual(parseDeliveryPath('/embed/vid_1/master.m3u8'), undefined);
  assert.deepEqual(parseDeliveryPath('/oembed'), { kind: 'oembed' });
  assert.equal(parseDeliveryPath('/v1/share/shr_abc/720p.m3u8'), undefined, 'direct names are not served under a link');
  assert.equal(familyUriOf('share', 'vid_1', 'videos/vid_1/hls/720p/seg-00003.m4s'), 'video-720p/seg-00003.m4s');
});

test('MP4 downloads: video-<q>.mp4 in the /v1 families, <q>.mp4 in direct', () => {
  assert.deepEqual(parseDeliveryPath('/vid_3/720p.mp4'), {
    kind: 'playback',
    family: 'direct',
    videoId: 'vid_3',
    resource: { type: 'download', quality: '720p' },
  });
  assert.deepEqual(parseDeliveryPath('/v1/private/vid_3/video-240p.mp4'), {
    kind: 'playback',
    family: 'private',
    videoId: 'vid_3',
    resource: { type: 'download', quality: '240p' },
  });
  assert.equal(parseDeliveryPath('/v1/public/o/e/vid_3/video-240p.mp4')?.kind, 'playback');
  for (const bad of ['/vid_3/720.mp4', '/vid_3/video-720p.mp4', '/v1/private/vid_3/240p.mp4'])
    assert.equal(parseDeliveryPath(bad), undefined, bad);
});

test("storyboards: storyboard.vtt and storyboard-<n>.jpg at every family's base", () => {
  for (const base of ['/v1/public/o/e/vid_3', '/v1/private/vid_3', '/vid_3']) {
    const vtt = parseDeliveryPath(`${base}/storyboard.vtt`);
    assert.deepEqual(vtt?.kind === 'playback' && vtt.resource, { type: 'storyboard' }, base);
    const sheet = parseDeliveryPath(`${base}/storyboard-2.jpg`);
    assert.deepEqual(sheet?.kind === 'playback' && sheet.resource, { type: 'storyboard_sheet', index: 2 }, base);
    assert.equal(parseDeliveryPath(`${base}/storyboard-x.jpg`), undefined);
  }
  assert.equal(storageKeyOf('vid_3', { type: 'storyboard' }), 'videos/vid_3/storyboard/storyboard.vtt');
  assert.equal(
    storageKeyOf('vid_3', { type: 'storyboard_sheet', index: 2 }),
    'videos/vid_3/storyboard/storyboard-2.jpg',
  );
});

test('captions in every family: the subtitles playlist, its segments and the whole file', () => {
  const bases = {
    public: '/v1/public/org_1/env_2/vid_3',
    private: '/v1/private/vid_3',
    direct: '/vid_3',
    share: '/v1/share/shr_1',
  };
  for (const [family, base] of Object.entries(bases)) {
    const resource = (rest: string) => {
      const route = parseDeliveryPath(`${base}/${rest}`);
      return route && 'resource' in route ? route.resource : undefined;
    };
    assert.deepEqual(resource('subtitles-pt-BR.m3u8'), { type: 'subtitles_playlist', language: 'pt-BR' }, family);
    assert.deepEqual(
      resource('subtitles-en/seg-00002.vtt'),
      { type: 'subtitles_segment', language: 'en', index: 2 },
      family,
    );
    assert.deepEqual(resource('subtitles-en.vtt'), { type: 'captions_file', language: 'en' }, family);
    for (const bad of ['subtitles-.m3u8', 'subtitles-en/seg-1.m4s', 'subtitles-e_n.vtt', 'subtitles-en/../x.vtt'])
      assert.equal(resource(bad), undefined, `${family} ${bad}`);
  }
});

describe('mediaKeyOf', () => {
  const clip = { id: 'vid_clip', clipMedia: { videoId: 'vid_src', firstSegment: 4, ownSegments: [] } };

  it("maps a clip's init and segments to its media video's, counted from its first segment", () => {
    assert.equal(
      mediaKeyOf(clip, { type: 'segment', quality: '720p', index: 1 }),
      'videos/vid_src/hls/720p/seg-00005.m4s',
    );
    assert.equal(mediaKeyOf(clip, { type: 'init', quality: '720p' }), 'videos/vid_src/hls/720p/init.mp4');
  });

  it("reads a frame-accurate clip's own segments from the clip, the others and the init from its media video", () => {
    const frameAccurate = { id: 'vid_clip', clipMedia: { videoId: 'vid_src', firstSegment: 4, ownSegments: [0, 3] } };
    assert.equal(
      mediaKeyOf(frameAccurate, { type: 'segment', quality: '720p', index: 0 }),
      'videos/vid_clip/hls/720p/seg-00000.m4s',
    );
    assert.equal(
      mediaKeyOf(frameAccurate, { type: 'segment', quality: '720p', index: 1 }),
      'videos/vid_src/hls/720p/seg-00005.m4s',
    );
    assert.equal(
      mediaKeyOf(frameAccurate, { type: 'segment', quality: '720p', index: 3 }),
      'videos/vid_clip/hls/720p/seg-00003.m4s',
    );
    assert.equal(mediaKeyOf(frameAccurate, { type: 'init', quality: '720p' }), 'videos/vid_src/hls/720p/init.mp4');
  });

  it("leaves a clip's playlists, and every key of another video, as they are", () => {
    assert.equal(mediaKeyOf(clip, { type: 'rendition', quality: '720p' }), 'videos/vid_clip/hls/720p/playlist.m3u8');
    assert.equal(
      mediaKeyOf({ id: 'vid_a', clipMedia: null }, { type: 'segment', quality: '720p', index: 1 }),
      'videos/vid_a/hls/720p/seg-00001.m4s',
    );
  });
});

test("audio.m4a at the base of the public, private and direct families; an audio-only video's 0p rendition", () => {
  const audio = { type: 'audio_download' };
  assert.deepEqual(parseDeliveryPath('/v1/public/org_1/env_2/vid_3/audio.m4a'), {
    kind: 'playback',
    family: 'public',
    orgId: 'org_1',
    envId: 'env_2',
    videoId: 'vid_3',
    resource: audio,
  });
  assert.deepEqual(parseDeliveryPath('/v1/private/vid_3/audio.m4a'), {
    kind: 'playback',
    family: 'private',
    videoId: 'vid_3',
    resource: audio,
  });
  assert.deepEqual(parseDeliveryPath('/vid_3/audio.m4a'), {
    kind: 'playback',
    family: 'direct',
    videoId: 'vid_3',
    resource: audio,
  });
  assert.equal(storageKeyOf('vid_3', { type: 'audio_download' }), 'videos/vid_3/audio.m4a');
  for (const bad of ['/vid_3/audio.mp4', '/vid_3/audio.m4a/x', '/v1/private/vid_3/video-audio.m4a'])
    assert.equal(parseDeliveryPath(bad), undefined, bad);
  // The audio-only rendition (short edge 0) in both naming families.
  assert.deepEqual(parseDeliveryPath('/v1/private/vid_3/video-0p/seg-00001.m4s'), {
    kind: 'playback',
    family: 'private',
    videoId: 'vid_3',
    resource: { type: 'segment', quality: '0p', index: 1 },
  });
  assert.equal(familyUriOf('public', 'vid_3', 'videos/vid_3/hls/0p/playlist.m3u8'), 'video-0p.m3u8');
  assert.equal(familyUriOf('direct', 'vid_3', 'videos/vid_3/hls/0p/init.mp4'), '0p/init.mp4');
});

test('renditions in other codecs (`720p-hevc`, `720p-av1`), alternate audio (`0p-a2`) and pictures without sound (`720p-v`, `720p-av1-v`) in every family, exactly as `720p`; stored in their own folders', () => {
  const bases = { public: '/v1/public/org_1/env_2/vid_3', private: '/v1/private/vid_3', share: '/v1/share/shr_1' };
  const resource = (path: string) => {
    const route = parseDeliveryPath(path);
    return route && 'resource' in route ? route.resource : undefined;
  };
  for (const key of ['720p-hevc', '720p-av1', '0p', '720p', '0p-a2', '720p-v', '720p-av1-v']) {
    for (const [family, base] of Object.entries(bases)) {
      assert.deepEqual(resource(`${base}/video-${key}.m3u8`), { type: 'rendition', quality: key }, `${family} ${key}`);
      assert.deepEqual(resource(`${base}/video-${key}/init.m4s`), { type: 'init', quality: key }, `${family} ${key}`);
      assert.deepEqual(
        resource(`${base}/video-${key}/seg-00012.m4s`),
        { type: 'segment', quality: key, index: 12 },
        `${family} ${key}`,
      );
    }
    assert.deepEqual(resource(`/vid_3/${key}.m3u8`), { type: 'rendition', quality: key }, key);
    assert.deepEqual(resource(`/vid_3/${key}/init.mp4`), { type: 'init', quality: key }, key);
    for (const name of ['seg-00004.m4s', '4.ts', 'seg-4.ts', '00004.m4s'])
      assert.deepEqual(
        resource(`/vid_3/${key}/${name}`),
        { type: 'segment', quality: key, index: 4 },
        `${key} ${name}`,
      );
    // A download parses like any other; routes/downloads.ts answers 404 for one that is not H.264.
    assert.deepEqual(resource(`/vid_3/${key}.mp4`), { type: 'download', quality: key }, key);
    assert.deepEqual(resource(`${bases.private}/video-${key}.mp4`), { type: 'download', quality: key }, key);
  }
  for (const bad of [
    '720p-vp9.m3u8',
    '720p-AV1.m3u8',
    '720p-.m3u8',
    '720p-av1-hevc.m3u8',
    '720-av1.m3u8',
    'av1.m3u8',
    '720p-av1/init.m4s',
    '0p-a.m3u8',
    '0p-a123.m3u8',
    '720p-v-av1.m3u8',
    '0p-a1-v.m3u8',
    '720p-v-v.m3u8',
  ]) {
    assert.equal(resource(`/vid_3/${bad}`), undefined, bad);
  }
  assert.equal(storageKeyOf('v', { type: 'rendition', quality: '720p-av1' }), 'videos/v/hls/720p-av1/playlist.m3u8');
  assert.equal(storageKeyOf('v', { type: 'init', quality: '720p-hevc' }), 'videos/v/hls/720p-hevc/init.mp4');
  assert.equal(
    storageKeyOf('v', { type: 'segment', quality: '720p-av1', index: 3 }),
    'videos/v/hls/720p-av1/seg-00003.m4s',
  );
  assert.equal(
    mediaKeyOf(
      { id: 'clip', clipMedia: { videoId: 'v', firstSegment: 4, ownSegments: [] } },
      { type: 'segment', quality: '720p-av1', index: 1 },
    ),
    'videos/v/hls/720p-av1/seg-00005.m4s',
  );
  // The master's and a rendition playlist's URIs, rewritten into each family's names.
  assert.equal(familyUriOf('public', 'v', 'videos/v/hls/720p-av1/playlist.m3u8'), 'video-720p-av1.m3u8');
  assert.equal(familyUriOf('share', 'v', 'videos/v/hls/720p-hevc/init.mp4'), 'video-720p-hevc/init.m4s');
  assert.equal(familyUriOf('private', 'v', 'videos/v/hls/720p-av1/seg-00003.m4s'), 'video-720p-av1/seg-00003.m4s');
  assert.equal(familyUriOf('direct', 'v', 'videos/v/hls/720p-av1/playlist.m3u8'), '720p-av1.m3u8');
  assert.equal(familyUriOf('direct', 'v', 'videos/v/hls/720p-hevc/init.mp4'), '720p-hevc/init.mp4');
  assert.equal(familyUriOf('direct', 'v', 'videos/v/hls/720p-av1/seg-00003.m4s'), '720p-av1/seg-00003.m4s');
  assert.equal(familyUriOf('direct', 'v', 'videos/v/hls/720p-vp9/seg-00003.m4s'), undefined);
  assert.equal(qualityHeight('720p-av1'), 720);
});
