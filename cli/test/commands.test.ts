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
const commandsDirs = ['cli', 'api', 'orchestrator', 'delivery', 'ingest', 'encode-node', 'dev'].map((pkg) =>
  join(cliDir, '..', pkg, 'src', 'commands'),
);

function commandFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return commandFiles(path);
    return entry.endsWith('.ts') ? [path] : [];
  });
}

const commandIds = commandsDirs.flatMap((dir) =>
  commandFiles(dir).map((file) => relative(dir, file).replace(/\.ts$/, '').split('/').join(' ')),
);

/** What `kino <id> --help` prints, for each id (cli/test/help-pages.mjs: one process answers them all). */
async function helpPages(ids: string[]): Promise<Map<string, string>> {
  const { stdout } = await run(process.execPath, [join(cliDir, 'test', 'help-pages.mjs'), ...ids], {
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return new Map(Object.entries(JSON.parse(stdout) as Record<string, string>));
}

test('every command file loads and answers --help with its usage', async () => {
  const pages = await helpPages(commandIds);
  for (const id of commandIds)
    assert.match(pages.get(id) ?? '', new RegExp(`\\$ kino ${id}\\b`), `kino ${id} --help shows its usage`);
});

/** Every directory of commands is a topic: `kino <topic> --help` opens with its description. */
const topicIds = [
  ...new Set(
    commandsDirs.flatMap((dir) =>
      commandFiles(dir).flatMap((file) => {
        const parts = relative(dir, file).split('/').slice(0, -1);
        return parts.map((_, i) => parts.slice(0, i + 1).join(' '));
      }),
    ),
  ),
];
// Described in the package.json of whichever package the CLI loads (oclif names topics with ':').
const topicDescriptions = new Map(
  ['cli', 'api', 'orchestrator', 'delivery', 'ingest', 'encode-node', 'dev'].flatMap((pkg) => {
    const { oclif } = JSON.parse(readFileSync(join(cliDir, '..', pkg, 'package.json'), 'utf8')) as {
      oclif?: { topics?: Record<string, { description: string }> };
    };
    return Object.entries(oclif?.topics ?? {}).map(
      ([name, topic]) => [name.split(':').join(' '), topic.description] as const,
    );
  }),
);

test('every topic has a description of its own, shown by its --help', async () => {
  const pages = await helpPages(topicIds);
  for (const id of topicIds) {
    const description = topicDescriptions.get(id);
    assert.ok(description, `the topic "${id}" is described in a package.json's oclif.topics (with ':' between words)`);
    assert.equal(pages.get(id)?.split('\n')[0], description, `kino ${id} --help`);
  }
});

/**
 * What a command file may import at its top: oclif, Node's own modules, the contract's vocabulary
 * (which imports nothing), and the light shared modules (flags, the base commands, profile
 * resolution), which themselves import nothing heavier.
 */
const lightModules = [
  'base-command.ts',
  'api-command.ts',
  'analytics-command.ts',
  'node-flags.ts',
  'profiles.ts',
  'environment-settings.ts',
  'watermark-flags.ts',
  'live-streams.ts',
].map((m) => join(cliDir, 'src', m));
// the API package's base of the `admin` commands (a process package's own, not the CLI's), in its admin/ folder.
lightModules.push(join(cliDir, '..', 'api', 'src', 'admin', 'admin-command.ts'));
const lightNames = lightModules.map((path) => path.split('/').at(-1)!.replace('.', '\\.'));
const lightImport = new RegExp(
  `from '(@oclif/core|@kino/proto/contract|node:[a-z/_]+|(\\.\\./)*(\\./)?(admin/)?(${lightNames.join('|')}))'|^import type `,
);

function valueImports(file: string): string[] {
  return readFileSync(file, 'utf8').match(/^import .* from '([^']+)';$/gm) ?? [];
}

test('commands import their implementation lazily, so listing them stays cheap', () => {
  const files = [...commandsDirs.flatMap(commandFiles), ...lightModules];
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

/** The `  - NAME: message` lines a failed start or check prints. */
const problemLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('  - '))
    .sort();

test('kino config check <process> names every problem, the same ones the process stops on', async () => {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/' };
  const required = {
    api: [
      'DATABASE_URL',
      'TEMPORAL_ADDRESS',
      'S3_ENDPOINT',
      'S3_BUCKET',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'DELIVERY_URL',
      'KINO_KEY_ENCRYPTION_KEY',
    ],
    orchestrator: [
      'DATABASE_URL',
      'S3_ENDPOINT',
      'S3_BUCKET',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'DELIVERY_URL',
      'KINO_KEY_ENCRYPTION_KEY',
    ],
    // NODE_TOKEN only with a plaintext registry (HOST:PORT), which is not set here.
    node: ['KINO_CONTROL_PLANE'],
    delivery: [
      'DATABASE_URL',
      'S3_ENDPOINT',
      'S3_BUCKET',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'CONTROL_PLANE_URL',
      'CLICKHOUSE_URL',
    ],
    ingest: ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'DELIVERY_URL'],
  };
  const start = {
    api: ['api'],
    orchestrator: ['orchestrator'],
    node: ['node', 'start'],
    delivery: ['delivery'],
    ingest: ['ingest'],
  };
  // A wrong value and a cross-variable rule besides the missing ones: every one is named.
  const wrong = { ...env, LOG_LEVEL: 'chatty', DASHBOARD_URL: 'http://127.0.0.1:7080/dashboard' };
  await Promise.all(
    Object.entries(required).map(async ([name, variables]) => {
      const checked = await run(process.execPath, [bin, 'config', 'check', name], { env: wrong }).then(
        () => assert.fail(`kino config check ${name} passed an empty environment`),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(checked.code, 1);
      const expected = [
        ...variables,
        'LOG_LEVEL',
        ...(name === 'api' ? ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'DASHBOARD_SESSION_SECRET'] : []),
      ];
      assert.deepEqual(
        problemLines(checked.stderr)
          .map((line) => line.slice(4).split(':')[0])
          .sort(),
        expected.sort(),
        name,
      );
      const started = await run(process.execPath, [bin, ...start[name as keyof typeof start]], { env: wrong }).then(
        () => assert.fail(`kino ${name} started with an empty environment`),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(started.code, 78);
      assert.deepEqual(problemLines(started.stderr), problemLines(checked.stderr), `kino ${name} and its check agree`);
    }),
  );

  const ok = await run(process.execPath, [bin, 'config', 'check', 'node', '--json'], {
    env: { ...env, KINO_CONTROL_PLANE: '127.0.0.1:7090', NODE_TOKEN: 'farm-token-1234' },
  });
  const report = JSON.parse(ok.stdout) as {
    process: string;
    ok: boolean;
    problems: string[];
    variables: { name: string; value: string | null }[];
  };
  assert.deepEqual([report.process, report.ok, report.problems], ['node', true, []]);
  assert.deepEqual(report.variables.find((v) => v.name === 'KINO_CONTROL_PLANE')?.value, '127.0.0.1:7090');
  assert.deepEqual(report.variables.find((v) => v.name === 'NODE_TOKEN')?.value, '(set, redacted)');
  assert.ok(!ok.stdout.includes('farm-token-1234'));
  const human = await run(process.execPath, [bin, 'config', 'check', 'node'], {
    env: { ...env, KINO_CONTROL_PLANE: '127.0.0.1:7090', NODE_TOKEN: 'farm-token-1234' },
  });
  assert.match(human.stdout, /^node: configuration ok/);
});

test('version answers as JSON', async () => {
  const { stdout } = await run(process.execPath, [bin, 'version', '--json']);
  assert.match((JSON.parse(stdout) as { version: string }).version, /^\d+\.\d+\.\d+/);
});
