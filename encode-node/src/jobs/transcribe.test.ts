import { test } from 'vitest';
import assert from 'node:assert/strict';
import { parseEngineOutput } from './transcribe.ts';
import { FfmpegFailedError } from '../errors.ts';

test("the engine's result is its last line; progress lines before it are skipped", () => {
  const result = parseEngineOutput(
    '{"progress": 2.5}\n{"result": {"language": "en", "durationSeconds": 3, "cpuSeconds": 0.4, "words": [{"start": 0.5, "end": 0.9, "text": " Hi."}]}}\n',
  );
  assert.equal(result.language, 'en');
  assert.deepEqual(result.words, [{ start: 0.5, end: 0.9, text: ' Hi.' }]);
});

test('an engine that ends without a result fails the job as a retryable failure of the tool', () => {
  assert.throws(() => parseEngineOutput('{"progress": 2.5}\n'), FfmpegFailedError);
  assert.throws(() => parseEngineOutput('Traceback (most recent call last):'), FfmpegFailedError);
});
