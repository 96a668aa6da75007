// The operators' commands end to end: `kino admin ...` and `kino api` as child processes against a
// real PostgreSQL, the way an operator (and the dev stack) runs them.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@kino/infra';
import { freePort, startProcess, waitFor, type ManagedProcess } from '@kino/infra/dev';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import type { Json } from './harness.ts';

const execFileAsync = promisify(execFile);
const kino = join(repoRoot, 'cli', 'bin', 'kino.js');

let services: TestServices;
let env: Record<string, string>;

beforeAll(async () => {
  services = await startTestServices({ postgres: true });
  env = { ...(process.env as Record<string, string>), DATABASE_URL: services.databaseUrl, AWS_SDK_JS_SUPPRESS_NODE_VERSION_WARNING: '1' };
});

afterAll(async () => {
  await services?.stop();
});

/** Runs `kino <args>`; resolves with exit code and output whatever the exit code. */
async function run(args: string[], extraEnv: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [kino, ...args], {
      cwd: repoRoot,
      env: { ...env, ...extraEnv },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failure.code ?? 1, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

async function runJson(args: string[]): Promise<Json> {
  const result = await run([...args, '--json']);
  assert.equal(result.code, 0, `kino ${args.join(' ')}: ${result.stderr}${result.stdout}`);
  return JSON.parse(result.stdout);
}

describe('kino admin and kino api', () => {
  let orgId: string;
  let envId: string;
  let envKey: Json;
  let fullKey: Json;
  let api: ManagedProcess | undefined;
  let apiUrl: string;

  afterAll(async () => {
    await api?.stop();
  });

  it('creates an organization and an environment (--json)', async () => {
    const org = await runJson(['admin', 'org', 'create', '--name', 'Acme Video']);
    assert.match(org.id, /^org_[0-9A-Za-z]{16}$/);
    assert.equal(org.name, 'Acme Video');
    assert.ok(!Number.isNaN(Date.parse(org.createdAt)));
    orgId = org.id;
    const environment = await runJson(['admin', 'env', 'create', '--org', orgId, '--name', 'production']);
    assert.match(environment.id, /^env_[0-9A-Za-z]{16}$/);
    assert.equal(environment.name, 'production');
    assert.equal(environment.orgId, orgId);
    envId = environment.id;
    const missing = await run(['admin', 'env', 'create', '--org', 'org_doesnotexist00', '--name', 'x', '--json']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stdout + missing.stderr, /does not exist/);
  });

  it('creates keys of each type, printed once', async () => {
    envKey = await runJson(['admin', 'key', 'create', '--org', orgId, '--env', envId, '--type', 'environment']);
    assert.match(envKey.apiKey, /^svc_test_[0-9A-Za-z]{32}$/);
    assert.match(envKey.id, /^key_/);
    assert.equal(envKey.type, 'environment');
    assert.equal(envKey.envId, envId);
    assert.equal(envKey.prefix, envKey.apiKey.slice(0, 13));
    fullKey = await runJson(['admin', 'key', 'create', '--org', orgId, '--type', 'full', '--live']);
    assert.match(fullKey.apiKey, /^svc_live_[0-9A-Za-z]{32}$/);
    assert.equal(fullKey.envId, null);
    const system = await runJson(['admin', 'key', 'create', '--org', orgId, '--type', 'system']);
    assert.equal(system.type, 'system');

    // Without --json the key is the one line on stdout; the warning goes to stderr.
    const human = await run(['admin', 'key', 'create', '--org', orgId, '--type', 'full']);
    assert.equal(human.code, 0);
    assert.match(human.stdout.trim(), /^svc_test_[0-9A-Za-z]{32}$/);
    assert.match(human.stderr, /only time/);

    for (const bad of [
      ['--type', 'environment'],
      ['--type', 'full', '--env', envId],
    ]) {
      const refused = await run(['admin', 'key', 'create', '--org', orgId, ...bad, '--json']);
      assert.notEqual(refused.code, 0, bad.join(' '));
    }
  });

  it('lists keys by prefix only, never the key', async () => {
    const listed = await run(['admin', 'key', 'list', '--org', orgId, '--json']);
    assert.equal(listed.code, 0);
    const keys: Json[] = JSON.parse(listed.stdout);
    assert.equal(keys.length, 4);
    const entry = keys.find((k) => k.id === envKey.id);
    assert.equal(entry.prefix, envKey.prefix);
    assert.equal(entry.revokedAt, null);
    assert.equal(entry.apiKey, undefined);
    const table = await run(['admin', 'key', 'list', '--org', orgId]);
    for (const output of [listed.stdout, table.stdout]) {
      assert.ok(!output.includes(envKey.apiKey) && !output.includes(fullKey.apiKey));
    }
    assert.ok(table.stdout.includes(envKey.prefix));
  });

  it('kino api serves the keys it was given, and refuses a bad configuration naming the variable', async () => {
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}/v1/api`;
    api = startProcess('kino-api', process.execPath, [kino, 'api'], {
      cwd: repoRoot,
      env: {
        ...env,
        API_PORT: String(port),
        TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
        S3_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
        S3_BUCKET: 'kino',
        S3_ACCESS_KEY_ID: 'x',
        S3_SECRET_ACCESS_KEY: 'y',
        DELIVERY_URL: 'http://127.0.0.1:7081',
        LOG_LEVEL: 'warn',
      },
      logFile: join(services.dir, 'kino-api.log'),
    });
    // Temporal and storage are not running here: health answers, degraded, with the database ok.
    const health = await waitFor('kino api to answer /health', async () => {
      const response = await fetch(`${apiUrl}/health`);
      return (await response.json()) as Json;
    });
    assert.equal(health.body.checks.database.status, 'ok');
    assert.equal(health.body.checks.temporal.status, 'error');

    const own = await fetch(`${apiUrl}/${orgId}/environments`, { headers: { 'X-Api-Key': envKey.apiKey } });
    assert.equal(own.status, 200);
    assert.deepEqual(((await own.json()) as Json).body.environments.map((e: Json) => e.id), [envId]);
    const full = await fetch(`${apiUrl}/${orgId}/environments/${envId}/videos`, { headers: { 'X-Api-Key': fullKey.apiKey } });
    assert.equal(full.status, 200);
    assert.ok(full.headers.get('x-ratelimit-remaining'));

    const broken = await run(['api'], { DATABASE_URL: '', TEMPORAL_ADDRESS: 'nowhere', S3_BUCKET: 'kino', DELIVERY_URL: 'x' });
    assert.equal(broken.code, 78);
    for (const variable of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'S3_ENDPOINT', 'DELIVERY_URL']) assert.match(broken.stderr, new RegExp(variable));
  });

  it('revokes a key: the running API answers 401 to it at once; revoking again is harmless', async () => {
    const revoked = await runJson(['admin', 'key', 'revoke', envKey.id]);
    assert.equal(revoked.id, envKey.id);
    assert.ok(!Number.isNaN(Date.parse(revoked.revokedAt)));
    assert.equal(revoked.alreadyRevoked, false);
    const refused = await fetch(`${apiUrl}/${orgId}/environments`, { headers: { 'X-Api-Key': envKey.apiKey } });
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as Json).code, 'unauthorized');
    const again = await runJson(['admin', 'key', 'revoke', envKey.id]);
    assert.equal(again.alreadyRevoked, true);
    assert.equal(again.revokedAt, revoked.revokedAt);
    const unknown = await run(['admin', 'key', 'revoke', 'key_doesnotexist00']);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /does not exist/);
  });

  it('kino api stops cleanly on SIGTERM', async () => {
    assert.ok(api);
    await api.stop();
    assert.equal(await api.exited, 0);
  });
});
