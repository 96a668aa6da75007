import { test } from 'vitest';
import assert from 'node:assert/strict';
import { testEncodeOptions, testSource as source } from '../encode-options.fixture.ts';
import { InvalidRequestError } from '../errors.ts';
import { runWholeJob } from './whole.ts';

test('a whole encode makes at least one rendition: none is refused before ffmpeg runs', async () => {
  const whole = { renditions: [], outputUrls: {}, measureQuality: false };
  await assert.rejects(
    runWholeJob(testEncodeOptions({ job: 'whole', whole }), source, whole),
    (error: unknown) => error instanceof InvalidRequestError && /renditions is empty/.test(error.message),
  );
});
