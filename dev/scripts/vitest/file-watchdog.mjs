// A bound on the wall-clock time of one test file, run as a vitest setup file in the file's own
// process. vitest bounds each test and hook, but a file that blocks its event loop (or runs long
// test after test) would hold the run forever. The watchdog is a thread, so it still runs when the
// test's thread is stuck: past the bound it names the file and kills its process, and vitest fails
// the file. The bound comes from KINO_TEST_FILE_BOUND_MS (vitest.config.mjs sets it per project).
import { Worker } from 'node:worker_threads';
import { relative } from 'node:path';
import { expect } from 'vitest';

const bound = Number(process.env.KINO_TEST_FILE_BOUND_MS);
const file = relative(process.cwd(), expect.getState().testPath ?? 'unknown test file');

// Written with writeSync from the thread itself: the test's thread may never flush anything again.
const watchdog = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
setTimeout(() => {
  writeSync(2, '\\ntest file hung: ' + workerData.file + ' (still running after ' + workerData.bound / 1000 + ' s); killing it\\n');
  process.kill(process.pid, 'SIGKILL');
}, workerData.bound);
`;

if (bound > 0) {
  // One watchdog per process: a process runs one file (isolate: true), the guard keeps it that way.
  globalThis.__kinoFileWatchdog?.terminate();
  globalThis.__kinoFileWatchdog = new Worker(watchdog, { eval: true, workerData: { file, bound } });
  globalThis.__kinoFileWatchdog.unref();
}
