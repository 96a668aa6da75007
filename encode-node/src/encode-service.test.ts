import { test } from 'vitest';
import assert from 'node:assert/strict';
import type { EncodeRequest__Output } from '@kino/proto';
import { testEncodeOptions, testSource as source } from './encode-options.fixture.ts';
import { runEncodeJob } from './encode-service.ts';
import { InvalidRequestError } from './errors.ts';

function run(request: Partial<EncodeRequest__Output>) {
  return runEncodeJob(testEncodeOptions(request));
}

test('a request is one kind of job, with the source probe it is made from: anything else is refused before ffmpeg runs', async () => {
  await assert.rejects(
    run({}),
    (error: unknown) => error instanceof InvalidRequestError && /names no job/.test(error.message),
  );
  const whole = { renditions: [], outputUrls: {}, measureQuality: false };
  await assert.rejects(
    run({ job: 'whole', whole, source: null }),
    (error: unknown) => error instanceof InvalidRequestError && /source/.test(error.message),
  );
  await assert.rejects(
    run({ job: 'whole', whole, source: { ...source, videoDurationSeconds: 0 } }),
    InvalidRequestError,
  );
});
