// The runner's guarantees, on fixture test files that only dev/scripts/vitest/fixtures/vitest.config.mjs
// matches (the repository's config never runs them).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function runTests(...filters) {
  // The run under test is a vitest of its own, not a worker of this one.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && !name.startsWith('KINO_TEST')),
  );
  const result = spawnSync(
    process.execPath,
    ['dev/scripts/run-tests.mjs', '--config', 'dev/scripts/vitest/fixtures/vitest.config.mjs', ...filters],
    { cwd: root, env: { ...env, NO_COLOR: '1' }, encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' },
  );
  const output = result.stdout + result.stderr;
  return { status: result.status, output, closing: result.stdout.trim().split('\n').at(-1) };
}

describe('dev/scripts/run-tests.mjs', () => {
  it('names a file that passes its bound, fails the run and still runs the next file', () => {
    const run = runTests('fixtures/integration-');
    assert.equal(run.status, 1, run.output);
    assert.match(
      run.output,
      /test file hung: dev\/scripts\/vitest\/fixtures\/integration-hangs\.fixture\.mjs \(still running after 3 s\)/,
    );
    assert.equal(run.closing, '1 passed, 1 failed', run.output);
  });

  it('ends with `N passed, N failed` and fails on a failed test', () => {
    const run = runTests('fixtures/unit-');
    assert.equal(run.status, 1, run.output);
    assert.equal(run.closing, '2 passed, 1 failed', run.output);
  });

  it('exits 0 when every test passes', () => {
    const run = runTests('fixtures/unit-passes');
    assert.equal(run.status, 0, run.output);
    assert.equal(run.closing, '2 passed, 0 failed', run.output);
  });

  it('runs the unit tests only with --unit', () => {
    const run = runTests('--unit');
    assert.equal(run.closing, '2 passed, 1 failed', run.output);
    assert.doesNotMatch(run.output, /integration-/);
  });

  it('takes its flags wherever they stand among the filters', () => {
    const run = runTests('fixtures/unit-', '--unit');
    assert.equal(run.closing, '2 passed, 1 failed', run.output);
    assert.doesNotMatch(run.output, /no test file matches/);
  });

  it('fails when a filter matches no test file, naming the filter', () => {
    const run = runTests('fixtures/unit-passes', 'no-such-test-file');
    assert.equal(run.status, 1, run.output);
    assert.match(run.output, /no test file matches "no-such-test-file"/);
  });
});
