// Shared set-up of the API tests: the app built on real services, and a small tenancy with one key
// of each kind. Each test file starts its services once (before) and stops them (after).
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createLogger, Storage, type StorageConfig } from '@kino/infra';
import { freePort } from '@kino/dev';
import type { TestServices } from '@kino/test/support/services';
import { buildApp, parseApiConfig, type ApiApp, type ApiConfig, type ApiDeps } from '@kino/api';
import type { HostResolver } from '@kino/webhooks';
import { createApiKey, createEnvironment, createOrganization, revokeApiKey } from '@kino/database/repositories';
import { migrateToLatest, openDatabase, type Db, type Environment, type Organization } from '@kino/database';

export interface ApiHarness {
  app: ApiApp;
  db: Db;
  temporal: Client;
  storage: Storage;
  config: ApiConfig;
  /** Builds another app instance on the same database and services (e.g. a second API process). */
  buildAnother(overrides?: Partial<ApiDeps>): Promise<ApiApp>;
  close(): Promise<void>;
}

/**
 * The webhook hosts of these tests, resolved without the internet: example.com and its subdomains
 * at a public address, `*.private.test` at private ones (`ula.`, `loopback6.` and `metadata.` at the
 * IPv6 unique-local, IPv6 loopback and cloud metadata addresses); any other name does not resolve.
 */
export const exampleResolver: HostResolver = async (hostname) => {
  if (hostname === 'example.com' || hostname.endsWith('.example.com')) return [{ address: '93.184.215.14', family: 4 }];
  const privateAddresses: Record<string, { address: string; family: number }> = {
    'ula.private.test': { address: 'fd12:3456::1', family: 6 },
    'loopback6.private.test': { address: '::1', family: 6 },
    'linklocal6.private.test': { address: 'fe80::1', family: 6 },
    'metadata.private.test': { address: '169.254.169.254', family: 4 },
  };
  if (privateAddresses[hostname]) return [privateAddresses[hostname]];
  if (hostname.endsWith('.private.test')) return [{ address: '10.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

/** Storage settings for tests that start no S3: presigning works offline; nothing listens there. */
const unreachableStorage: StorageConfig = {
  S3_ENDPOINT: 'http://127.0.0.1:9',
  S3_BUCKET: 'kino',
  S3_ACCESS_KEY_ID: 'test-access',
  S3_SECRET_ACCESS_KEY: 'test-secret',
  S3_REGION: 'us-east-1',
  S3_FORCE_PATH_STYLE: true,
};

export async function startApiHarness(
  services: TestServices,
  { env: envOverrides = {}, ...overrides }: Partial<Omit<ApiDeps, 'config'>> & { env?: Record<string, string> } = {},
): Promise<ApiHarness> {
  const storageConfig = services.storage.S3_ENDPOINT ? services.storage : unreachableStorage;
  // Without a Temporal server, a lazy connection to a closed port: calls fail, nothing hangs.
  const temporalAddress = services.temporalAddress || `127.0.0.1:${await freePort()}`;
  const config = parseApiConfig({
    DATABASE_URL: services.databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    ...Object.fromEntries(Object.entries(storageConfig).map(([k, v]) => [k, String(v)])),
    DELIVERY_URL: 'http://delivery.test',
    KINO_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'silent',
    ...envOverrides,
  });
  const db = await openDatabase(config.DATABASE_URL);
  await migrateToLatest(db);
  // No Temporal in this file: no retry interceptor either, so calls fail at once instead of retrying.
  const connection = Connection.lazy({
    address: config.TEMPORAL_ADDRESS,
    ...(services.temporalAddress ? {} : { interceptors: [] }),
  });
  const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  const storage = new Storage(config);
  const logger = createLogger('api-test', process.env.KINO_TEST_LOG_LEVEL ?? 'silent');
  const base: ApiDeps = { db, storage, temporal, config, logger, webhookResolver: exampleResolver, ...overrides };
  const apps: ApiApp[] = [];
  const build = async (more: Partial<ApiDeps> = {}) => {
    const app = await buildApp({ ...base, ...more });
    apps.push(app);
    return app;
  };
  const app = await build();
  return {
    app,
    db,
    temporal,
    storage,
    config,
    buildAnother: build,
    async close() {
      for (const a of apps) await a.close();
      await connection.close().catch(() => undefined);
      storage.close();
      await db.destroy();
    },
  };
}

export interface Tenancy {
  org: Organization;
  envA: Environment;
  envB: Environment;
  otherOrg: Organization;
  otherEnv: Environment;
  keys: {
    envA: string;
    envB: string;
    full: string;
    system: string;
    otherFull: string;
    revoked: string;
    /** Created already expired: answers 401 like a revoked key. */
    expired: string;
  };
  keyIds: { envA: string; full: string };
}

export async function seedTenancy(db: Db): Promise<Tenancy> {
  const org = await createOrganization(db, { name: 'Acme' });
  const envA = await createEnvironment(db, { orgId: org.id, name: 'production' });
  const envB = await createEnvironment(db, { orgId: org.id, name: 'staging' });
  const otherOrg = await createOrganization(db, { name: 'Globex' });
  const otherEnv = await createEnvironment(db, { orgId: otherOrg.id, name: 'production' });
  const envAKey = await createApiKey(db, { orgId: org.id, envId: envA.id, type: 'environment', live: false });
  const envBKey = await createApiKey(db, { orgId: org.id, envId: envB.id, type: 'environment', live: true });
  const full = await createApiKey(db, { orgId: org.id, type: 'full', live: false });
  const system = await createApiKey(db, { orgId: otherOrg.id, type: 'system', live: true });
  const otherFull = await createApiKey(db, { orgId: otherOrg.id, type: 'full', live: false });
  const revoked = await createApiKey(db, { orgId: org.id, type: 'full', live: false });
  await revokeApiKey(db, revoked.record.id);
  const expired = await createApiKey(db, { orgId: org.id, type: 'full', live: false, expiresInSeconds: 0 });
  return {
    org,
    envA,
    envB,
    otherOrg,
    otherEnv,
    keys: {
      envA: envAKey.apiKey,
      envB: envBKey.apiKey,
      full: full.apiKey,
      system: system.apiKey,
      otherFull: otherFull.apiKey,
      revoked: revoked.apiKey,
      expired: expired.apiKey,
    },
    keyIds: { envA: envAKey.record.id, full: full.record.id },
  };
}

/** The spec's error envelope, checked member by member. */
export function assertErrorEnvelope(
  body: unknown,
  status: number,
  code: string,
  assert: { equal: (a: unknown, b: unknown, m?: string) => void; ok: (v: unknown, m?: string) => void },
): void {
  const error = body as Record<string, unknown>;
  assert.equal(error.status, status, `status in ${JSON.stringify(body)}`);
  assert.equal(error.code, code, `code in ${JSON.stringify(body)}`);
  assert.ok(typeof error.title === 'string' && error.title.length > 0, 'title');
  assert.ok(typeof error.detail === 'string' && error.detail.length > 0, 'detail');
  assert.ok(!JSON.stringify(body).includes('    at '), 'no stack trace');
}

/** What a test's call to the API answered: the status, the headers and the parsed JSON body. */
export interface ApiAnswer {
  status: number;
  headers: Record<string, unknown>;
  body: Json;
}

/** One call to the API as a client holding `key` makes it, through Fastify's inject (no socket). */
export async function apiRequest(
  app: ApiApp,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  { key, body, headers = {} }: { key: string; body?: unknown; headers?: Record<string, string> },
): Promise<ApiAnswer> {
  const response = await app.inject({
    method,
    url: `/v1/api${url}`,
    headers: { 'x-api-key': key, ...headers },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return { status: response.statusCode, headers: response.headers, body: response.json() as Json };
}

/** A parsed response body: the tests check it member by member, so it is typed loosely on purpose. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/**
 * The first bytes of an MP4 (an `ftyp` box): enough for `process`'s early format check, which reads
 * only the container's opening; nothing in it is playable, so a workflow started on it fails later.
 */
export const MP4_OPENING = new Uint8Array(Buffer.from('\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2', 'latin1'));
