// `npm run test:coverage`: each workspace's unit tests with v8 coverage of that workspace's own
// code, one report per workspace: coverage/<workspace>/index.html (HTML) and a text summary here.
// Usage: node dev/scripts/test-coverage.mjs [workspace ...]   (default: every unit-test project)
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const vitest = join(root, 'node_modules', '.bin', 'vitest');
const workspaces = [
  'proto',
  'infra',
  'database',
  'analytics',
  'ffmpeg',
  'webhooks',
  'presenters',
  'api',
  'orchestrator',
  'encode-node',
  'delivery',
  'ingest',
  'player',
  'sdk',
  'cli',
  'dev',
];
const chosen = process.argv.length > 2 ? process.argv.slice(2) : workspaces;

const failed = [];
for (const workspace of chosen) {
  if (!workspaces.includes(workspace))
    throw new Error(`no unit-test project "${workspace}" (one of: ${workspaces.join(', ')})`);
  console.log(`\n== ${workspace} ==`);
  const result = spawnSync(
    vitest,
    [
      'run',
      `--project=${workspace}`,
      '--coverage.enabled',
      `--coverage.include=${workspace}/src/**/*.ts`,
      `--coverage.reportsDirectory=coverage/${workspace}`,
    ],
    { cwd: root, stdio: 'inherit' },
  );
  if (result.status !== 0) failed.push(workspace);
}
console.log(`\nCoverage reports: ${chosen.map((w) => `coverage/${w}/index.html`).join(', ')}`);
if (failed.length) {
  console.error(`tests failed in: ${failed.join(', ')}`);
  process.exit(1);
}
