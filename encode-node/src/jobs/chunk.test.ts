import { test } from 'vitest';
import assert from 'node:assert/strict';
import { testEncodeOptions, testSource as source } from '../encode-options.fixture.ts';
import { InvalidRequestError } from '../errors.ts';
import { runChunkJob } from './chunk.ts';

test("a chunk's audio comes from the track or from its own audio head, never both: both is refused before ffmpeg runs", async () => {
  const chunk = {
    renditions: [],
    outputUrls: {},
    index: 1,
    startSeconds: 6,
    durationSeconds: 12,
    firstSegment: 1,
    audioUrl: 'http://storage.test/audio.mp4',
    measureQuality: false,
    audioHead: true,
    bootstrap: false,
    inputOffsetSeconds: 0,
    inputIsSegment: false,
  };
  await assert.rejects(
    runChunkJob(testEncodeOptions({ job: 'chunk', chunk }), source, chunk),
    (error: unknown) => error instanceof InvalidRequestError && /audio_head/.test(error.message),
  );
});
