import { test } from 'vitest';
import assert from 'node:assert/strict';
import { testEncodeOptions, testSource } from '../encode-options.fixture.ts';
import { InvalidRequestError } from '../errors.ts';
import { runAudioTrackJob } from './audio-track.ts';

test('the audio track of a source without audio is refused before ffmpeg runs', async () => {
  const audioTrack = {
    audioCodec: 'aac',
    audioBitrateKbps: 128,
    outputUrl: 'http://storage.test/audio.mp4',
    copy: false,
  };
  const source = { ...testSource, hasAudio: false };
  await assert.rejects(
    runAudioTrackJob(testEncodeOptions({ job: 'audioTrack', audioTrack, source }), source, audioTrack),
    (error: unknown) => error instanceof InvalidRequestError && /without audio/.test(error.message),
  );
});
