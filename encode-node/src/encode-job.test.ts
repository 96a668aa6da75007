import { test } from 'vitest';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { pino } from 'pino';
import type { EncodeRequest__Output, ProbeResult__Output } from '@kino/proto';
import { ProcessPriority } from '@kino/ffmpeg';
import { runEncodeJob } from './encode-job.ts';
import { InvalidRequestError } from './errors.ts';

const source: ProbeResult__Output = {
  durationSeconds: 4, videoDurationSeconds: 4, width: 640, height: 360, frameRate: 25, frameCount: 100, videoCodec: 'h264',
  pixelFormat: 'yuv420p', hasAudio: true, audioCodec: 'aac', audioChannels: 2, audioSampleRate: 48000, formatName: 'mov', sizeBytes: 1000,
};

function run(request: Partial<EncodeRequest__Output>) {
  return runEncodeJob({
    request: { jobId: 'job', videoId: 'vid', inputUrl: 'http://storage.test/clip.mp4', source, onDemand: false, ...request },
    workDir: tmpdir(),
    threads: 0,
    priority: new ProcessPriority(0),
    signal: new AbortController().signal,
    logger: pino({ level: 'silent' }),
    onProgress: () => {},
  });
}

test('a request is one kind of job, with the source probe it is made from: anything else is refused before ffmpeg runs', async () => {
  await assert.rejects(run({}), (error: unknown) => error instanceof InvalidRequestError && /names no job/.test(error.message));
  const whole = { renditions: [], outputUrls: {}, measureQuality: false };
  await assert.rejects(run({ job: 'whole', whole, source: null }), (error: unknown) => error instanceof InvalidRequestError && /source/.test(error.message));
  await assert.rejects(run({ job: 'whole', whole, source: { ...source, videoDurationSeconds: 0 } }), InvalidRequestError);
  await assert.rejects(run({ job: 'whole', whole }), (error: unknown) => error instanceof InvalidRequestError && /renditions is empty/.test(error.message));
  await assert.rejects(
    run({ job: 'audioTrack', audioTrack: { audioCodec: 'aac', audioBitrateKbps: 128, outputUrl: 'http://storage.test/audio.mp4', copy: false }, source: { ...source, hasAudio: false } }),
    (error: unknown) => error instanceof InvalidRequestError && /without audio/.test(error.message),
  );
  // A chunk's audio comes from the track or from its own audio head, never both.
  const chunk = { renditions: [], outputUrls: {}, index: 1, startSeconds: 6, durationSeconds: 12, firstSegment: 1, audioUrl: 'http://storage.test/audio.mp4', measureQuality: false, audioHead: true };
  await assert.rejects(run({ job: 'chunk', chunk }), (error: unknown) => error instanceof InvalidRequestError && /audio_head/.test(error.message));
});
