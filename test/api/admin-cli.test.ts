// The operators' commands end to end: `kino admin ...` and `kino api` as child processes against a
// real PostgreSQL (and, for `kino admin bootstrap`, SeaweedFS), the way an operator (and the dev stack) runs them.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { GetBucketCorsCommand } from '@aws-sdk/client-s3';
import { openDatabase } from '@kino/database';
import { createS3Client, repoRoot } from '@kino/infra';
import { freePort, kinoBin, startProcess, waitFor, type ManagedProcess } from '@kino/dev';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import type { Json } from './harness.ts';

const execFileAsync = promisify(execFile);
const kino = kinoBin;

let services: TestServices;
let env: Record<string, string>;
/** What the operator configures on the API and gives `kino admin playback-keys rotate`. */
const keyEncryptionKey = randomBytes(32).toString('base64');

beforeAll(async () => {
  services = await startTestServices({ postgres: true, s3: true });
  env = {
    ...(process.env as Record<string, string>),
    DATABASE_URL: services.databaseUrl,
    AWS_SDK_JS_SUPPRESS_NODE_VERSION_WARNING: '1',
  };
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
    // Listed with its just-in-time setting: null, the farm's default, until someone sets it.
    const listed = await runJson(['admin', 'env', 'list', '--org', orgId]);
    assert.deepEqual(
      listed.map((e: { id: string; justInTime: boolean | null }) => [e.id, e.justInTime]),
      [[envId, null]],
    );
    const human = await run(['admin', 'env', 'list', '--org', orgId]);
    assert.match(human.stdout, new RegExp(`^${envId}  production  just-in-time default  `, 'm'));
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
        KINO_KEY_ENCRYPTION_KEY: keyEncryptionKey,
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
    assert.deepEqual(
      ((await own.json()) as Json).body.environments.map((e: Json) => e.id),
      [envId],
    );
    const full = await fetch(`${apiUrl}/${orgId}/environments/${envId}/videos`, {
      headers: { 'X-Api-Key': fullKey.apiKey },
    });
    assert.equal(full.status, 200);
    assert.ok(full.headers.get('x-ratelimit-remaining'));

    const broken = await run(['api'], {
      DATABASE_URL: '',
      KINO_KEY_ENCRYPTION_KEY: '',
      TEMPORAL_ADDRESS: 'nowhere',
      S3_BUCKET: 'kino',
      DELIVERY_URL: 'x',
    });
    assert.equal(broken.code, 78);
    for (const variable of [
      'DATABASE_URL',
      'TEMPORAL_ADDRESS',
      'S3_ENDPOINT',
      'DELIVERY_URL',
      'KINO_KEY_ENCRYPTION_KEY',
    ])
      assert.match(broken.stderr, new RegExp(variable));
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

  it('gives a key an expiry: listed with it, and answered 401 once it has passed', async () => {
    const expiring = await runJson(['admin', 'key', 'create', '--org', orgId, '--type', 'full', '--expires-in', '30d']);
    const expiresIn = Date.parse(expiring.expiresAt) - Date.parse(expiring.createdAt);
    assert.equal(Math.round(expiresIn / 86_400_000), 30);
    const listed = (await runJson(['admin', 'key', 'list', '--org', orgId])) as Json[];
    const entry = listed.find((k) => k.id === expiring.id);
    assert.deepEqual(
      { expiresAt: entry.expiresAt, active: entry.active },
      { expiresAt: expiring.expiresAt, active: true },
    );
    assert.equal(listed.find((k) => k.id === fullKey.id).expiresAt, null);
    const served = await fetch(`${apiUrl}/${orgId}/environments`, { headers: { 'X-Api-Key': expiring.apiKey } });
    assert.equal(served.status, 200);
    // Thirty days pass: the database's clock is the one the API compares with.
    const db = await openDatabase(services.databaseUrl);
    await db
      .updateTable('api_keys')
      .set({ expires_at: sql<Date>`now() - interval '1 second'` })
      .where('id', '=', expiring.id)
      .execute();
    await db.destroy();
    const refused = await fetch(`${apiUrl}/${orgId}/environments`, { headers: { 'X-Api-Key': expiring.apiKey } });
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as Json).code, 'unauthorized');
    const table = await run(['admin', 'key', 'list', '--org', orgId]);
    assert.match(table.stdout, new RegExp(`${expiring.id} .* expired `));
    const relisted = (await runJson(['admin', 'key', 'list', '--org', orgId])) as Json[];
    assert.equal(relisted.find((k) => k.id === expiring.id).active, false);
    for (const bad of ['0d', '30', '2w', '-1d']) {
      const refusedFlag = await run([
        'admin',
        'key',
        'create',
        '--org',
        orgId,
        '--type',
        'full',
        `--expires-in=${bad}`,
        '--json',
      ]);
      assert.notEqual(refusedFlag.code, 0, bad);
      assert.match(refusedFlag.stdout + refusedFlag.stderr, /expected a positive number followed by m, h or d/);
    }
  });

  it('rotates the playback signing key: the running API publishes both, the old one until its tokens expire', async () => {
    const jwksKids = async () =>
      ((await (await fetch(`${apiUrl}/.well-known/jwks.json`)).json()) as Json).keys.map((k: Json) => k.kid).sort();
    const [first] = await jwksKids();
    assert.ok(first, 'the API made a signing key on first use');
    const before = (await runJson(['admin', 'playback-keys', 'list'])) as Json[];
    assert.deepEqual(
      before.map((k) => [k.kid, k.state]),
      [[first, 'signing']],
    );

    const withoutKey = await run(['admin', 'playback-keys', 'rotate', '--json'], { KINO_KEY_ENCRYPTION_KEY: '' });
    assert.notEqual(withoutKey.code, 0);
    assert.match(withoutKey.stdout + withoutKey.stderr, /KINO_KEY_ENCRYPTION_KEY/);

    const rotated = await run(['admin', 'playback-keys', 'rotate', '--json'], {
      KINO_KEY_ENCRYPTION_KEY: keyEncryptionKey,
    });
    assert.equal(rotated.code, 0, rotated.stderr);
    const { kid, retired } = JSON.parse(rotated.stdout) as Json;
    assert.notEqual(kid, first);
    assert.deepEqual(
      retired.map((k: Json) => k.kid),
      [first],
    );
    const graceDays = (Date.parse(retired[0].publishedUntil) - Date.now()) / 86_400_000;
    assert.ok(graceDays > 7 && graceDays < 7.1, `published for the longest token plus slack, not ${graceDays} days`);
    const after = (await runJson(['admin', 'playback-keys', 'list'])) as Json[];
    assert.deepEqual(
      after.map((k) => [k.kid, k.state]),
      [
        [kid, 'signing'],
        [first, 'published'],
      ],
    );
    // The API reads the key set again within its cache time: both keys, so tokens of either verify.
    await waitFor('the API to publish the new key beside the old one', async () => {
      const kids = await jwksKids();
      return kids.length === 2 ? kids : undefined;
    });
    assert.deepEqual(await jwksKids(), [first, kid].sort());

    // At rest the private halves are sealed: nothing in the table holds a private JWK in clear.
    const db = await openDatabase(services.databaseUrl);
    const rows = await db.selectFrom('signing_keys').select(['kid', 'private_jwk', 'private_key_sealed']).execute();
    await db.destroy();
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.equal(row.private_jwk, null);
      assert.match(row.private_key_sealed ?? '', /^v1\./);
    }
  });

  it('kino api stops cleanly on SIGTERM', async () => {
    assert.ok(api);
    await api.stop();
    assert.equal(await api.exited, 0);
  });
});

describe('kino admin bootstrap and operator tokens', () => {
  let bootstrapEnv: Record<string, string>;
  let api: ManagedProcess | undefined;
  let apiUrl: string;
  let first: Json;

  beforeAll(async () => {
    // A database of its own: bootstrap creates the first organization only where there is none.
    const admin = await openDatabase(services.databaseUrl);
    await sql`create database kino_bootstrap`.execute(admin);
    await admin.destroy();
    const databaseUrl = new URL(services.databaseUrl);
    databaseUrl.pathname = '/kino_bootstrap';
    const storage = Object.fromEntries(Object.entries(services.storage).map(([name, value]) => [name, String(value)]));
    // A bucket the test services did not create: bootstrap makes it.
    bootstrapEnv = { ...storage, S3_BUCKET: 'kino-bootstrap', DATABASE_URL: databaseUrl.toString() };
  });

  afterAll(async () => {
    await api?.stop();
  });

  it('names every missing or invalid variable, as `kino config check` does', async () => {
    const refused = await run(['admin', 'bootstrap'], {
      DATABASE_URL: '',
      S3_ENDPOINT: 'not a url',
      S3_BUCKET: '',
      S3_ACCESS_KEY_ID: '',
      S3_SECRET_ACCESS_KEY: '',
    });
    assert.equal(refused.code, 1);
    for (const variable of ['DATABASE_URL', 'S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']) {
      assert.match(refused.stderr, new RegExp(`- ${variable}:`), variable);
    }
  });

  it('first run: the bucket with its CORS rule, the schema, and a first organization, environment, key and operator token, printed once', async () => {
    const result = await run(['admin', 'bootstrap', '--org-name', 'Acme', '--json'], bootstrapEnv);
    assert.equal(result.code, 0, result.stderr);
    first = JSON.parse(result.stdout);
    assert.deepEqual(first.bucket, {
      name: 'kino-bootstrap',
      created: true,
      corsRuleChanged: true,
      corsOrigins: ['*'],
    });
    assert.ok(first.migrations.postgres.length > 0);
    assert.equal(first.migrations.clickhouse, null);
    assert.equal(first.created.organization.name, 'Acme');
    assert.equal(first.created.environment.name, 'production');
    assert.match(first.created.apiKey.key, /^svc_live_[0-9A-Za-z]{32}$/);
    assert.match(first.created.operatorToken.token, /^kino_op_[0-9A-Za-z]{40}$/);
    assert.equal(first.created.operatorToken.prefix, first.created.operatorToken.token.slice(0, 16));
    assert.deepEqual(first.organizations, [first.created.organization]);

    const s3 = createS3Client({ ...services.storage, S3_BUCKET: 'kino-bootstrap' });
    const cors = await s3.send(new GetBucketCorsCommand({ Bucket: 'kino-bootstrap' }));
    s3.destroy();
    assert.equal(cors.CORSRules?.length, 1);
    const [rule] = cors.CORSRules!;
    assert.deepEqual(rule!.AllowedOrigins, ['*']);
    assert.deepEqual([...rule!.AllowedMethods!].sort(), ['GET', 'HEAD', 'PUT']);
    assert.deepEqual(rule!.ExposeHeaders, ['ETag']);
  });

  it('what it printed works against the API: the key lists the environment, the operator token lists the nodes', async () => {
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}/v1/api`;
    api = startProcess('kino-api-bootstrapped', process.execPath, [kino, 'api'], {
      cwd: repoRoot,
      env: {
        ...env,
        ...bootstrapEnv,
        API_PORT: String(port),
        TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
        DELIVERY_URL: 'http://127.0.0.1:7081',
        KINO_KEY_ENCRYPTION_KEY: keyEncryptionKey,
        LOG_LEVEL: 'warn',
      },
      logFile: join(services.dir, 'kino-api-bootstrapped.log'),
    });
    // Temporal is not running here: health answers (degraded), which is all this waits for.
    await waitFor('kino api to answer /health', async () => (await fetch(`${apiUrl}/health`)).status);
    const { organization, environment, apiKey, operatorToken } = first.created;
    const listed = await fetch(`${apiUrl}/${organization.id}/environments`, { headers: { 'X-Api-Key': apiKey.key } });
    assert.equal(listed.status, 200);
    assert.deepEqual(
      ((await listed.json()) as Json).body.environments.map((e: Json) => e.id),
      [environment.id],
    );
    const nodes = await fetch(`${apiUrl}/operators/nodes`, {
      headers: { authorization: `Bearer ${operatorToken.token}` },
    });
    assert.equal(nodes.status, 200);
  });

  it('a second run creates nothing and makes no secrets; it says what exists', async () => {
    const again = await run(['admin', 'bootstrap', '--json'], bootstrapEnv);
    assert.equal(again.code, 0, again.stderr);
    const result = JSON.parse(again.stdout) as Json;
    assert.deepEqual(result, {
      bucket: { name: 'kino-bootstrap', created: false, corsRuleChanged: false, corsOrigins: ['*'] },
      migrations: { postgres: [], clickhouse: null },
      created: null,
      // No KINO_KEY_ENCRYPTION_KEY here: no farm certificate authority is made or read.
      farmAuthority: null,
      organizations: [first.created.organization],
    });
    const human = await run(['admin', 'bootstrap'], bootstrapEnv);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /Bucket kino-bootstrap: exists/);
    assert.match(
      human.stdout,
      new RegExp(`Organizations exist \\(${first.created.organization.id} Acme\\): nothing created`),
    );
    assert.doesNotMatch(human.stdout + human.stderr, /svc_live_|kino_op_/);
    const db = await openDatabase(bootstrapEnv.DATABASE_URL!);
    const counts = await Promise.all(
      ['organizations', 'environments', 'api_keys', 'operator_tokens'].map(async (table) =>
        Number((await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(db)).rows[0]!.n),
      ),
    );
    await db.destroy();
    assert.deepEqual(counts, [1, 1, 1, 1]);

    // Other origins: the rule is replaced (and only then).
    const origins = await run(
      ['admin', 'bootstrap', '--cors-origin', 'https://app.example.com', '--json'],
      bootstrapEnv,
    );
    assert.deepEqual((JSON.parse(origins.stdout) as Json).bucket, {
      name: 'kino-bootstrap',
      created: false,
      corsRuleChanged: true,
      corsOrigins: ['https://app.example.com'],
    });
  });

  it('operator tokens: created (shown once), listed by prefix, revoked by prefix; the running API answers 401 at once', async () => {
    const created = await run(['admin', 'operator-token', 'create', '--name', 'on-call', '--json'], bootstrapEnv);
    assert.equal(created.code, 0, created.stderr);
    const token = JSON.parse(created.stdout) as Json;
    assert.match(token.token, /^kino_op_/);
    const asOperator = async () =>
      (await fetch(`${apiUrl}/operators/nodes`, { headers: { authorization: `Bearer ${token.token}` } })).status;
    assert.equal(await asOperator(), 200);

    const listed = await run(['admin', 'operator-token', 'list', '--json'], bootstrapEnv);
    const tokens = JSON.parse(listed.stdout) as Json[];
    assert.deepEqual(
      tokens.map((t) => [t.name, t.prefix, t.revokedAt]),
      [
        ['kino admin bootstrap', first.created.operatorToken.prefix, null],
        ['on-call', token.prefix, null],
      ],
    );
    assert.ok(!listed.stdout.includes(token.token) && !listed.stdout.includes(first.created.operatorToken.token));

    const revoked = await run(['admin', 'operator-token', 'revoke', token.prefix, '--json'], bootstrapEnv);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal((JSON.parse(revoked.stdout) as Json).id, token.id);
    assert.equal(await asOperator(), 401);
    const unknown = await run(['admin', 'operator-token', 'revoke', 'opt_doesnotexist00'], bootstrapEnv);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /does not exist/);
  });
});
