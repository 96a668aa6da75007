import { test } from 'vitest';
import assert from 'node:assert/strict';
import { FfmpegAbortedError, FfmpegError, runFfmpeg, runFfprobe } from './command.ts';
import type { FfmpegProgress } from './progress.ts';

test('reports progress and returns the last block, with the frame count', async () => {
  const seen: FfmpegProgress[] = [];
  const last = await runFfmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=64x64:rate=25:duration=2', '-f', 'null', '-'], {
    durationSeconds: 2,
    onProgress: (p) => seen.push(p),
  });
  assert.ok(seen.length >= 1);
  assert.equal(last?.done, true);
  assert.equal(last?.frame, 50);
  assert.ok(seen.every((p) => p.percent >= 0 && p.percent <= 100));
});

test('a failing run throws FfmpegError carrying the end of stderr', async () => {
  await assert.rejects(runFfmpeg(['-i', '/nonexistent/input.mp4', '-f', 'null', '-']), (error: unknown) => {
    assert.ok(error instanceof FfmpegError);
    assert.equal(error.exitCode, 1);
    assert.match(error.stderrTail, /No such file or directory/);
    assert.match(error.message, /No such file or directory/);
    return true;
  });
  await assert.rejects(runFfprobe(['-of', 'json', '-show_format', '/nonexistent.mkv']), FfmpegError);
});

test('aborting kills ffmpeg at once', async () => {
  const controller = new AbortController();
  const started = Date.now();
  const run = runFfmpeg(['-re', '-f', 'lavfi', '-i', 'testsrc2=size=64x64:rate=25:duration=60', '-f', 'null', '-'], {
    durationSeconds: 60,
    signal: controller.signal,
    onProgress: () => controller.abort(),
  });
  await assert.rejects(run, FfmpegAbortedError);
  assert.ok(Date.now() - started < 10_000, 'stopped long before the 60 s input ended');
  await assert.rejects(
    runFfmpeg(['-version'], { signal: controller.signal }),
    FfmpegAbortedError,
    'already aborted: never starts',
  );
});

test('presigned URL queries never reach error messages', async () => {
  await assert.rejects(runFfprobe(['http://127.0.0.1:9/x.mp4?X-Amz-Signature=secret']), (error: unknown) => {
    assert.ok(error instanceof FfmpegError);
    assert.doesNotMatch(error.message + error.stderrTail, /secret/);
    return true;
  });
});
