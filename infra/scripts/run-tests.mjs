// Runs every test file of every workspace with Node's own test runner (TypeScript through tsx).
// Usage: node infra/scripts/run-tests.mjs [path-filter ...]
// Unit tests (`*/src/**/*.test.ts`) run first and in parallel; integration and end-to-end tests
// (`test/**/*.test.ts`) start real services, so they run one file at a time.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const filters = process.argv.slice(2);

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (entry.endsWith('.test.ts')) found.push(relative(root, path));
  }
  return found;
}

const all = findTests(root).filter((f) => filters.length === 0 || filters.some((x) => f.includes(x))).sort();
const unit = all.filter((f) => !f.startsWith('test/'));
const integration = all.filter((f) => f.startsWith('test/'));
const tapDir = mkdtempSync(join(tmpdir(), 'kino-tests-'));
let failed = false;
let passed = 0;
let failures = 0;
for (const [name, files, concurrency] of [['unit', unit, 2], ['integration', integration, 1]]) {
  if (files.length === 0) continue;
  const tapFile = join(tapDir, `${name}.tap`);
  const result = spawnSync(
    process.execPath,
    [
      '--import', 'tsx', '--test', `--test-concurrency=${concurrency}`,
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      '--test-reporter=tap', `--test-reporter-destination=${tapFile}`,
      ...files,
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } },
  );
  if (result.status !== 0) failed = true;
  const tap = readFileSync(tapFile, 'utf8');
  passed += Number(/^# pass (\d+)/m.exec(tap)?.[1] ?? 0);
  failures += Number(/^# fail (\d+)/m.exec(tap)?.[1] ?? 0);
}
if (failed && failures === 0) failures = 1; // a runner that crashed before reporting still fails
// One closing line for the whole run (unit and integration together).
console.log(`\n${passed} passed, ${failures} failed`);
process.exit(failed ? 1 : 0);
