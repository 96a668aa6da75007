// The probe job with a fake farm and node: which sources fail for good, and what a good one gives.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import type { ProbeResult__Output } from '@kino/proto';
import type { SourceProbe } from '../activity-types.ts';
import { createNodeActivities } from '../activities/node-work.ts';
import { environment, failureOf, harness, logger } from '../testing/fake-node.ts';

test('probe: an empty or missing upload, or a file with neither picture nor sound, is InvalidSource at once; sound alone is an audio-only source', async () => {
  const input = { videoId: 'vid_1', storagePath: 'uploads/o/e/u/clip.mp4' };
  const empty = await failureOf(
    environment().run(createNodeActivities({ ...harness({ objectSize: 0 }), logger }).probeSource, input),
  );
  assert.equal(empty.type, 'InvalidSource');
  assert.equal(empty.message, 'the uploaded file is empty (0 bytes)');
  const missing = await failureOf(
    environment().run(createNodeActivities({ ...harness({ objectSize: null }), logger }).probeSource, input),
  );
  assert.equal(missing.type, 'InvalidSource');

  const audioOnly: ProbeResult__Output = {
    audioTracks: [],
    durationSeconds: 4,
    width: 0,
    height: 0,
    frameRate: 0,
    frameCount: 0,
    videoCodec: '',
    pixelFormat: '',
    dynamicRange: 'sdr',
    hasAudio: true,
    audioCodec: 'aac',
    audioChannels: 2,
    audioSampleRate: 48000,
    formatName: 'mov',
    sizeBytes: 1000,
    videoDurationSeconds: 0,
  };
  const sound = (await environment().run(
    createNodeActivities({ ...harness({ probe: () => Promise.resolve(audioOnly) }), logger }).probeSource,
    input,
  )) as SourceProbe;
  assert.deepEqual([sound.width, sound.height, sound.hasAudio], [0, 0, true], 'an audio-only source');
  const nothing = await failureOf(
    environment().run(
      createNodeActivities({
        ...harness({ probe: () => Promise.resolve({ ...audioOnly, hasAudio: false, audioCodec: '' }) }),
        logger,
      }).probeSource,
      input,
    ),
  );
  assert.equal(nothing.type, 'InvalidSource');
  assert.equal(nothing.message, 'the file has neither a video nor an audio stream');

  const video = {
    ...audioOnly,
    width: 640,
    height: 360,
    frameRate: 30,
    frameCount: 120,
    videoCodec: 'h264',
    pixelFormat: 'yuv420p',
  };
  const probe = (await environment().run(
    createNodeActivities({ ...harness({ probe: () => Promise.resolve(video) }), logger }).probeSource,
    input,
  )) as SourceProbe;
  assert.equal(probe.width, 640);
  assert.equal(probe.durationSeconds, 4);
});
