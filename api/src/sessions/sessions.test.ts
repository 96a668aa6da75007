import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { createLogger } from '@kino/infra';
import { migrateToLatest, type Db } from '@kino/database';
import { openPgliteDatabase } from '@kino/database/testing';
import { createOrganization, addOrganizationMember, findDashboardSession } from '@kino/database/repositories';
import { RefreshRefusedError, type OidcClient, type ProviderTokens } from './oidc.ts';
import { DashboardSessions, hashSessionId, SignInRefusedError } from './sessions.ts';

let db: Db;
let orgId: string;

beforeAll(async () => {
  db = await openPgliteDatabase();
  await migrateToLatest(db);
  orgId = (await createOrganization(db, { name: 'Acme' })).id;
  await addOrganizationMember(db, orgId, 'Ada@Example.com');
});

afterAll(async () => {
  await db?.destroy();
});

function tokens(overrides: Partial<ProviderTokens> = {}, claims: Record<string, unknown> = {}): ProviderTokens {
  return {
    accessToken: `at-${Math.random()}`,
    refreshToken: 'rt-1',
    idToken: 'id-1',
    accessExpiresAt: new Date(Date.now() + 600_000),
    claims: { sub: 'user-1', email: 'ada@example.com', email_verified: true, name: 'Ada', ...claims },
    ...overrides,
  };
}

/** A provider whose refresh answers as the test says, counting calls. */
function fakeProvider(refresh: (token: string) => Promise<ProviderTokens>) {
  const calls: string[] = [];
  const oidc = {
    refresh: async (token: string) => {
      calls.push(token);
      return refresh(token);
    },
  } as unknown as OidcClient;
  return { oidc, calls };
}

function sessionsWith(oidc: OidcClient, options: { now?: () => Date; claim?: string } = {}) {
  return new DashboardSessions({
    db,
    oidc,
    secret: 's'.repeat(32),
    idleMs: 3600_000,
    organizationsClaim: options.claim,
    logger: createLogger('test', 'silent'),
    now: options.now,
  });
}

describe('dashboard sessions', () => {
  it('reach the organizations the address is a member of, and those the claim lists', async () => {
    const sessions = sessionsWith(fakeProvider(async () => tokens()).oidc, { claim: 'kino_orgs' });
    const id = await sessions.create(tokens({}, { kino_orgs: ['org_fromclaim'] }));
    const user = await sessions.authenticate(id);
    assert.ok(user);
    assert.deepEqual([...user.organizationIds].sort(), [orgId, 'org_fromclaim'].sort());
    // The table keeps the hash of the id, never the id.
    assert.ok(await findDashboardSession(db, hashSessionId(id)));
    assert.equal(await findDashboardSession(db, id), undefined);
  });

  it('refuse a sign-in without a verified address', async () => {
    const sessions = sessionsWith(fakeProvider(async () => tokens()).oidc);
    await assert.rejects(sessions.create(tokens({}, { email_verified: false })), SignInRefusedError);
    await assert.rejects(sessions.create(tokens({}, { email: undefined })), SignInRefusedError);
  });

  it('refresh near expiry once for parallel requests, and keep the new tokens', async () => {
    const { oidc, calls } = fakeProvider(async () => tokens({ accessToken: 'at-new', refreshToken: 'rt-2' }));
    const sessions = sessionsWith(oidc);
    const id = await sessions.create(tokens({ accessExpiresAt: new Date(Date.now() + 10_000) }));
    const users = await Promise.all([sessions.authenticate(id), sessions.authenticate(id), sessions.authenticate(id)]);
    assert.ok(users.every(Boolean));
    assert.deepEqual(calls, ['rt-1']);
    const row = (await findDashboardSession(db, hashSessionId(id)))!;
    assert.equal(row.access_token, 'at-new');
    assert.equal(row.refresh_token, 'rt-2');
  });

  it('end when the provider refuses a refresh; survive an unreachable provider while the token lasts', async () => {
    const refused = sessionsWith(
      fakeProvider(async () => Promise.reject(new RefreshRefusedError('invalid_grant'))).oidc,
    );
    const id = await refused.create(tokens({ accessExpiresAt: new Date(Date.now() + 10_000) }));
    assert.equal(await refused.authenticate(id), undefined);
    assert.equal(await findDashboardSession(db, hashSessionId(id)), undefined);

    const unreachable = sessionsWith(fakeProvider(async () => Promise.reject(new TypeError('fetch failed'))).oidc);
    const kept = await unreachable.create(tokens({ accessExpiresAt: new Date(Date.now() + 10_000) }));
    assert.ok(await unreachable.authenticate(kept));
    const expired = await unreachable.create(tokens({ accessExpiresAt: new Date(Date.now() - 1000) }));
    assert.equal(await unreachable.authenticate(expired), undefined);
  });

  it('end after the idle limit', async () => {
    let now = new Date();
    const sessions = sessionsWith(fakeProvider(async () => tokens()).oidc, { now: () => now });
    const id = await sessions.create(tokens({ accessExpiresAt: new Date(Date.now() + 10 * 3600_000) }));
    assert.ok(await sessions.authenticate(id));
    now = new Date(now.getTime() + 2 * 3600_000);
    assert.equal(await sessions.authenticate(id), undefined);
  });

  it('bind CSRF tokens to their session', async () => {
    const sessions = sessionsWith(fakeProvider(async () => tokens()).oidc);
    const a = (await sessions.authenticate(await sessions.create(tokens())))!;
    const b = (await sessions.authenticate(await sessions.create(tokens())))!;
    assert.equal(sessions.checkCsrfToken(a, sessions.csrfToken(a)), true);
    assert.equal(sessions.checkCsrfToken(a, sessions.csrfToken(b)), false);
    assert.equal(sessions.checkCsrfToken(a, undefined), false);
    assert.equal(sessions.checkCsrfToken(a, ''), false);
  });
});
