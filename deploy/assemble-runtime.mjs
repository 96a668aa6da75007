#!/usr/bin/env node
// Assembles what production runs into a directory: the compiled packages (`npm run build` first)
// with their production dependencies only — no TypeScript, tsx, test tooling, chDB, PGlite or the
// OpenID dev provider. The image (deploy/Dockerfile) is this directory on a Node LTS base, and the
// production-path test runs every Kino service from it.
//
// In the checkout every workspace's manifest names its TypeScript sources (`exports` of
// ./src/*.ts, oclif commands in ./src/commands), which tsx runs with no build step. Here each
// manifest names the compiled files instead, by one rule: ./src/X.ts is ./dist/X.js with its
// declarations ./dist/X.d.ts. An entry point with no compiled file (a test-only one, such as
// @kino/database/testing) is left out.
//
// Usage: node deploy/assemble-runtime.mjs <dir>    then: node <dir>/cli/bin/kino.js <command>
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = resolve(process.argv[2] ?? '');
if (!process.argv[2]) throw new Error('usage: node deploy/assemble-runtime.mjs <dir>');

// The workspaces production runs, and the files each needs beside package.json and dist/.
const runtime = {
  proto: ['kino.proto'],
  infra: [],
  database: [],
  analytics: [],
  ffmpeg: [],
  webhooks: [],
  presenters: [],
  api: [],
  orchestrator: [],
  // The speech engine's script, run by a node for each transcription (jobs/transcribe.ts).
  'encode-node': ['transcribe'],
  // Delivery serves the player's bundle (player/scripts/build.mjs writes it into player/dist).
  player: [],
  delivery: [],
  ingest: [],
  sdk: [],
  cli: ['bin'],
};

for (const name of Object.keys(runtime)) {
  if (!existsSync(join(repoRoot, name, 'dist')))
    throw new Error(`${name}/dist is missing: run \`npm run build\` first`);
}
if (!existsSync(join(repoRoot, 'dashboard', 'dist', 'index.html')))
  throw new Error('dashboard/dist is missing: run `npm run build` first');

rmSync(target, { recursive: true, force: true });
mkdirSync(target, { recursive: true });
const rootManifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
writeFileSync(
  join(target, 'package.json'),
  `${JSON.stringify({ name: rootManifest.name, version: rootManifest.version, private: true, type: 'module', engines: rootManifest.engines, workspaces: Object.keys(runtime) }, null, 2)}\n`,
);
// The lock pins every version; npm prunes what the runtime workspaces do not need.
cpSync(join(repoRoot, 'package-lock.json'), join(target, 'package-lock.json'));
/** The manifest of a compiled workspace: its entry points and commands in dist/. */
function compiledManifest(name) {
  const manifest = JSON.parse(readFileSync(join(repoRoot, name, 'package.json'), 'utf8'));
  const exports = {};
  for (const [path, entry] of Object.entries(manifest.exports ?? {})) {
    // Already a built file (the player's bundle, made by its own build script): kept as it is, the
    // runtime's only reader being Node (a `{types, default}` entry keeps its default, the file).
    const source = typeof entry === 'string' ? entry : entry.default;
    if (source.startsWith('./dist/')) {
      exports[path] = source;
      continue;
    }
    const compiled = source.replace(/^\.\/src\//, './dist/').replace(/\.ts$/, '');
    if (existsSync(join(repoRoot, name, `${compiled}.js`)))
      exports[path] = { types: `${compiled}.d.ts`, default: `${compiled}.js` };
  }
  manifest.exports = exports;
  if (manifest.oclif?.commands) manifest.oclif.commands = manifest.oclif.commands.replace(/^\.\/src\//, './dist/');
  return manifest;
}

for (const [name, files] of Object.entries(runtime)) {
  mkdirSync(join(target, name));
  writeFileSync(join(target, name, 'package.json'), `${JSON.stringify(compiledManifest(name), null, 2)}\n`);
  for (const file of ['dist', ...files]) {
    cpSync(join(repoRoot, name, file), join(target, name, file), {
      recursive: true,
      filter: (path) => !path.endsWith('.tsbuildinfo'),
    });
  }
}
// The API serves the dashboard's built assets (api/dist/dashboard/plugin.js finds them here).
cpSync(join(repoRoot, 'dashboard', 'dist'), join(target, 'dashboard', 'dist'), { recursive: true });

// npm starts from a copy of the build's node_modules (every runtime package is there, at the lock's
// version) and removes what the runtime does not need, where installing from the cache would
// unpack every package again: the same tree (compared package by package), for 11 CPU-s where the
// install took 44 (43–48 where it took 62–65, in two pairs while the kernel's file work was slow).
// A copy, not links: npm rewrites some of its files in place.
execFileSync('cp', ['-a', join(repoRoot, 'node_modules'), join(target, 'node_modules')]);
// Not the build's caches (.cache holds its workflow bundles and test results, .vite its builds).
for (const entry of readdirSync(join(target, 'node_modules')))
  if (entry.startsWith('.') && entry !== '.bin' && entry !== '.package-lock.json')
    rmSync(join(target, 'node_modules', entry), { recursive: true, force: true });
execFileSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], {
  cwd: target,
  stdio: 'inherit',
});
// npm leaves a scope's directory when it removes the scope's last package.
for (const entry of readdirSync(join(target, 'node_modules')))
  if (entry.startsWith('@') && readdirSync(join(target, 'node_modules', entry)).length === 0)
    rmSync(join(target, 'node_modules', entry), { recursive: true });
// The orchestrator's workflow bundle, made now into its cache (orchestrator/src/
// workflow-bundle.ts): every start of the image's orchestrator skips webpack, and the image's
// user never needs to write the cache.
const orchestratorDist = join(target, 'orchestrator', 'dist');
execFileSync(
  process.execPath,
  [
    '--input-type=module',
    '--eval',
    `const { createLogger } = await import('@kino/infra');
     const { workflowsPath } = await import(${JSON.stringify(join(orchestratorDist, 'worker.js'))});
     const { loadWorkflowBundle, workflowBundleCacheDir } = await import(${JSON.stringify(join(orchestratorDist, 'workflow-bundle.js'))});
     await loadWorkflowBundle(workflowsPath, { cacheDir: workflowBundleCacheDir, logger: createLogger('assemble', 'warn') });`,
  ],
  { cwd: target, stdio: 'inherit' },
);
// Each Kino plugin's oclif manifest (oclif.manifest.json in its root: what `oclif manifest` writes
// when a CLI is packed). Without one, oclif imports every command of every plugin at each `kino`
// start to learn their names; with them it imports the one it runs: `kino videos list` 0.28 → 0.19
// CPU-s, measured on a checkout's sources. Written here and not in a checkout, whose commands
// change under it (oclif reads a manifest without checking it against the commands).
execFileSync(
  process.execPath,
  [
    '--input-type=module',
    '--eval',
    `const { writeFileSync } = await import('node:fs');
     const { join } = await import('node:path');
     const { loadKinoConfig } = await import(${JSON.stringify(join(target, 'cli', 'bin', 'run.js'))});
     for (const plugin of (await loadKinoConfig()).getPluginsList())
       if (plugin.name.startsWith('@kino/')) writeFileSync(join(plugin.root, 'oclif.manifest.json'), JSON.stringify(plugin.manifest));`,
  ],
  // As the image runs it (deploy/Dockerfile): no dev plugin.
  { cwd: target, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } },
);
console.log(`assembled ${target}: node ${join(target, 'cli', 'bin', 'kino.js')} <command>`);
