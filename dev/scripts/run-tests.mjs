// Runs the tests of every workspace on vitest (projects in vitest.config.mjs), with the guarantees CI
// relies on: a filter that matches no test file fails; unit tests run first, in parallel, then the
// integration and end-to-end tests of test/ three files at a time (those on the shared farm among
// them), then the files that need a quiet machine, two at a time, in a vitest run of their own
// (vitest.config.mjs says which are which); each file has a wall-clock bound
// (dev/scripts/vitest/file-watchdog.mjs names a file that passes it); processes a test file left
// behind are killed; one closing line `N passed, N failed`, and a non-zero exit on any failure.
// Usage: node dev/scripts/run-tests.mjs [--config <vitest config>] [--checks] [--unit] [path-filter ...]
// A filter is a substring of a test file's path (from the repository root), as vitest's own.
// --checks also runs `npm run lint` and `npm run typecheck`, beside the unit tests (each is mostly
// one busy core); a failed check counts as a failed test and the integration tests do not run.
// --unit runs the unit tests only (`npm run test:quick` is --checks --unit).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const vitest = join(root, 'node_modules', '.bin', 'vitest');
// The projects of test/ (vitest.config.mjs): `test` and `test-shared-farm` (the files on one farm)
// run together; `test-quiet` after them, in a vitest run of its own, so that the shared farm (which
// lives as long as the run that set it up) is down while they run.
const isIntegration = (project) => project.startsWith('test');
const QUIET = 'test-quiet';

const args = process.argv.slice(2);
/** Takes `flag` (and, with `withValue`, the word after it) out of `args`, wherever it stands. */
function takeFlag(flag, withValue = false) {
  const at = args.indexOf(flag);
  if (at === -1) return undefined;
  return args.splice(at, withValue ? 2 : 1)[1] ?? true;
}
const configPath = takeFlag('--config', true);
const config = configPath ? ['--config', configPath] : [];
const withChecks = Boolean(takeFlag('--checks'));
const unitOnly = Boolean(takeFlag('--unit'));
const filters = args;
const work = mkdtempSync(join(tmpdir(), 'kino-tests-'));

/** An npm script run beside the tests, its output kept and printed whole when it ends. */
function runCheck(script) {
  const child = spawn('npm', ['run', '--silent', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const text = Buffer.concat(output).toString().trim();
      console.log(`\n${code === 0 ? 'passed' : 'FAILED'}: npm run ${script}${text ? `\n${text}` : ''}`);
      resolve(code === 0);
    });
  });
}

// The files vitest would run: the check on filters and the choice of phases use vitest's own list.
const listFile = join(work, 'files.json');
const listed = spawnSync(vitest, ['list', '--filesOnly', `--json=${listFile}`, ...config, ...filters], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (listed.status !== 0 || !existsSync(listFile)) {
  console.error('run-tests: vitest could not list the test files');
  process.exit(1);
}
const files = JSON.parse(readFileSync(listFile, 'utf8'))
  .map((f) => ({ path: relative(root, f.file), project: f.projectName }))
  .filter((f) => !unitOnly || !isIntegration(f.project));
const unmatched = filters.filter((filter) => !files.some((f) => f.path.includes(filter)));
if (files.length === 0 || unmatched.length > 0) {
  console.error(
    `run-tests: no test file matches ${(unmatched.length ? unmatched : filters).map((f) => `"${f}"`).join(', ')}`,
  );
  console.log('\n0 passed, 1 failed');
  process.exit(1);
}

/** One vitest run in a process group of its own, so that whatever its test files started dies with it. */
function runPhase(name, projectArgs) {
  const report = join(work, `${name}.json`);
  const child = spawn(
    vitest,
    [
      'run',
      ...projectArgs,
      ...config,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...filters,
    ],
    { cwd: root, stdio: 'inherit', detached: true },
  );
  const forward = (signal) => killGroup(child.pid, signal);
  process.on('SIGINT', forward).on('SIGTERM', forward);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      killGroup(child.pid, 'SIGKILL'); // services a killed (hung) file could not stop
      resolve(tally(report, code === 0 && signal === null));
    });
  });
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if (error.code !== 'ESRCH') throw error;
  }
}

/** Passed and failed tests from vitest's JSON report; a file that failed outside any test counts once. */
function tally(report, ok) {
  if (!existsSync(report)) return { passed: 0, failed: 1, ok: false };
  const result = JSON.parse(readFileSync(report, 'utf8'));
  printSlowest(result);
  const fileFailures = result.testResults.filter(
    (file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed'),
  ).length;
  const failed = result.numFailedTests + fileFailures;
  return { passed: result.numPassedTests, failed: failed === 0 && !ok ? 1 : failed, ok };
}

/** The phase's slowest files by wall-clock time: where a run's minutes went, in every log (CI's too). */
function printSlowest(result) {
  const files = result.testResults
    .map((file) => ({ path: relative(root, file.name), seconds: (file.endTime - file.startTime) / 1000 }))
    .filter((file) => Number.isFinite(file.seconds))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 8);
  if (files.length < 2) return;
  console.log(`slowest files: ${files.map((file) => `${file.path} ${Math.round(file.seconds)} s`).join(', ')}`);
}

// Started once the filters are known to match: a run that stops there leaves nothing running.
const checks = withChecks ? Promise.all(['lint', 'typecheck'].map(runCheck)) : Promise.resolve([]);
const phases = [];
if (files.some((f) => !isIntegration(f.project))) phases.push(['unit', ['--project=!test*']]);
if (files.some((f) => isIntegration(f.project) && f.project !== QUIET))
  phases.push(['integration', ['--project=test', '--project=test-shared-farm']]);
if (files.some((f) => f.project === QUIET)) phases.push(['quiet', [`--project=${QUIET}`]]);
let passed = 0;
let failed = 0;
let ok = true;
for (const [name, projectArgs] of phases) {
  // The checks ran beside the unit tests; as `lint && typecheck && tests` did, a failed one stops
  // the run before the integration tests.
  if (name !== 'unit' && (await checks).includes(false)) break;
  const result = await runPhase(name, projectArgs);
  passed += result.passed;
  failed += result.failed;
  ok &&= result.ok;
}
failed += (await checks).filter((passedCheck) => !passedCheck).length;
rmSync(work, { recursive: true, force: true });
// One closing line for the whole run (unit and integration together).
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(ok && failed === 0 ? 0 : 1);
