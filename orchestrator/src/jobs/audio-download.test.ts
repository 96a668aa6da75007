// Where `audio.m4a` comes from: a copy whenever AAC is there to copy, an AAC-LC encode otherwise.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { probedSource, rendition } from '../testing/fake-node.ts';
import { audioDownloadSource } from './audio-download.ts';

const storagePath = 'uploads/o/e/u/clip.mp4';
const trackKey = 'videos/vid_1/work/audio-aac-he-64.m4a';

test("the source's own AAC is copied; else an AAC audio track; else an AAC-LC encode at the rendition's AAC rate or 128 kbps", () => {
  const opus = { ...probedSource, audioCodec: 'opus' };
  assert.deepEqual(
    audioDownloadSource({ storagePath, rendition: rendition!, probe: probedSource, audioTrackKey: trackKey }),
    { input: storagePath, encoding: { copy: true } },
  );
  const heAac = { ...rendition!, audioCodec: 'aac-he' as const, audioBitrateKbps: 64 };
  assert.deepEqual(audioDownloadSource({ storagePath, rendition: heAac, probe: opus, audioTrackKey: trackKey }), {
    input: trackKey,
    encoding: { copy: true },
  });
  assert.deepEqual(audioDownloadSource({ storagePath, rendition: heAac, probe: opus }), {
    input: storagePath,
    encoding: { audioCodec: 'aac-he', audioBitrateKbps: 64 },
  });
  const mp3 = { ...rendition!, audioCodec: 'mp3' as const, audioBitrateKbps: 128 };
  assert.deepEqual(audioDownloadSource({ storagePath, rendition: mp3, probe: opus, audioTrackKey: trackKey }), {
    input: storagePath,
    encoding: { audioCodec: 'aac', audioBitrateKbps: 128 },
  });
  const silent = { ...rendition!, audioBitrateKbps: 0 };
  assert.deepEqual(audioDownloadSource({ storagePath, rendition: silent, probe: opus }), {
    input: storagePath,
    encoding: { audioCodec: 'aac', audioBitrateKbps: 128 },
  });
});
