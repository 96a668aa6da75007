// The `kino` binary as a user runs it: a child process.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const cliDir = new URL('..', import.meta.url).pathname;
// From sources, as the tests run every process (cli/bin/kino.js runs the compiled dist/).
const bin = join(cliDir, '..', 'dev', 'bin', 'kino.js');
// The cli's own commands and those of the packages it loads as oclif plugins (cli/package.json).
const commandsDirs = ['cli', 'control-plane', 'delivery', 'workers', 'dev'].map((pkg) => join(cliDir, '..', pkg, 'src', 'commands'));

function commandFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return commandFiles(path);
    return entry.endsWith('.ts') ? [path] : [];
  });
}

const commandIds = commandsDirs.flatMap((dir) => commandFiles(dir).map((file) => relative(dir, file).replace(/\.ts$/, '').split('/').join(' ')));

test('every command file loads and answers --help with its usage', async () => {
  await Promise.all(
    commandIds.map(async (id) => {
      const { stdout } = await run(process.execPath, [bin, ...id.split(' '), '--help'], { env: { ...process.env, NO_COLOR: '1' } });
      assert.match(stdout, new RegExp(`\\$ kino ${id}\\b`), `kino ${id} --help shows its usage`);
    }),
  );
});

/**
 * What a command file may import at its top: oclif, Node's own modules, the contract's vocabulary
 * (which imports nothing), and the CLI's light shared modules (flags, the base commands, profile
 * resolution), which themselves import nothing heavier.
 */
const lightModules = ['base-command.ts', 'api-command.ts', 'analytics-command.ts', 'node-flags.ts', 'profiles.ts'];
const lightImport = new RegExp(`from '(@oclif/core|@kino/proto/contract|node:[a-z/_]+|(\\.\\./)*(\\./)?(${lightModules.map((m) => m.replace('.', '\\.')).join('|')}))'|^import type `);

function valueImports(file: string): string[] {
  return readFileSync(file, 'utf8').match(/^import .* from '([^']+)';$/gm) ?? [];
}

test('commands import their implementation lazily, so listing them stays cheap', () => {
  const files = [...commandsDirs.flatMap(commandFiles), ...lightModules.map((m) => join(cliDir, 'src', m))];
  for (const file of files) {
    for (const line of valueImports(file)) assert.match(line, lightImport, `${relative(cliDir, file)}: ${line}`);
  }
});

test('a process command with a missing variable stops at start and names it', async () => {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/' };
  const failure = await run(process.execPath, [bin, 'api'], { env }).then(
    () => assert.fail('kino api started without DATABASE_URL'),
    (error: { code: number; stderr: string }) => error,
  );
  assert.notEqual(failure.code, 0);
  assert.match(failure.stderr, /DATABASE_URL/);
});

test('version answers as JSON', async () => {
  const { stdout } = await run(process.execPath, [bin, 'version', '--json']);
  assert.match((JSON.parse(stdout) as { version: string }).version, /^\d+\.\d+\.\d+/);
});
