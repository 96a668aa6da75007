// Raising a job's priority while its ffmpeg runs: every thread of the running process, and the
// processes it starts afterwards, run at the new nice value. Linux (/proc); the tests run as root
// here, as a node with CAP_SYS_NICE or RLIMIT_NICE 20 would.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { runFfmpeg, FfmpegAbortedError } from './command.ts';
import { ProcessPriority, backgroundNiceness, threadNiceness } from './priority.ts';

async function until<T>(what: string, check: () => T | undefined, deadlineMs = 15_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// An encode that runs until aborted, with encoder threads (x264's, and its lookahead).
const endlessEncode = [
  '-re',
  '-f',
  'lavfi',
  '-i',
  'testsrc2=size=320x180:rate=25',
  '-c:v',
  'libx264',
  '-preset',
  'ultrafast',
  '-threads',
  '4',
  '-f',
  'null',
  '-',
];

test('a background run raised while it runs: every thread of its ffmpeg, and the ffmpeg it starts next, run at nice 0', async () => {
  const priority = new ProcessPriority(backgroundNiceness);
  const stop = new AbortController();
  let progressed = false;
  const running = runFfmpeg(endlessEncode, { priority, signal: stop.signal, onProgress: () => (progressed = true) });
  try {
    // Encoding (threads started) and every thread at the background value.
    const pid = await until('the encode to run with its threads', () => {
      const [only] = priority.pids;
      return only !== undefined && progressed && threadNiceness(only).length > 2 ? only : undefined;
    });
    assert.deepEqual(new Set(threadNiceness(pid)), new Set([backgroundNiceness]), 'every thread niced at start');

    const renice = priority.raise();
    assert.deepEqual(new Set(threadNiceness(pid)), new Set([0]), 'every thread at nice 0');
    assert.equal(renice.refused, false);
    assert.ok(renice.threads > 2, `${renice.threads} threads reniced`);
    assert.equal(priority.niceness, 0);
  } finally {
    stop.abort();
    await assert.rejects(running, FfmpegAbortedError);
  }
  assert.deepEqual(priority.pids, [], 'an exited process is not tracked');

  // The job's next ffmpeg (a second pass, the quality scoring) starts at the raised value.
  const next = new AbortController();
  const second = runFfmpeg(endlessEncode, { priority, signal: next.signal });
  try {
    const pid = await until('the next encode', () => priority.pids[0]);
    assert.deepEqual(new Set(threadNiceness(pid)), new Set([0]));
    assert.deepEqual(priority.raise(), { threads: 0, refused: false }, 'raised already: nothing to do');
  } finally {
    next.abort();
    await assert.rejects(second, FfmpegAbortedError);
  }
});

test('raising never makes a job nicer', () => {
  const priority = new ProcessPriority(0);
  assert.deepEqual(priority.raise(backgroundNiceness), { threads: 0, refused: false });
  assert.equal(priority.niceness, 0);
});
