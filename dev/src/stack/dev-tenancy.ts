// The dev organization, environment and API key: made once, and re-used on every restart, with the
// functions the operators' `kino admin org create`, `env create`, `key create` and `member add` run
// (@kino/database/admin), called in the launcher's own process. Through the commands each was a `kino`
// start of its own: four processes and 2.3 CPU-s at every start of a stack, and the tests start about
// fifty stacks. The commands themselves are tested where they are the subject (test/api/admin-cli,
// test/cli).
import { openDatabase } from '@kino/database';
import {
  addOrganizationMember,
  createApiKey,
  createEnvironment,
  createOrganization,
  openAdminDatabase,
  type Db,
} from '@kino/database/admin';
import { getEnvironment } from '@kino/database/repositories';
import { DevStackError } from './preflight.ts';

export interface DevTenancy {
  orgId: string;
  envId: string;
  apiKey: string;
}

/** Runs `work` on the dev database as an admin command would (its schema brought up to date first). */
async function withAdminDatabase<T>(databaseUrl: string, what: string, work: (db: Db) => Promise<T>): Promise<T> {
  let db: Db | undefined;
  try {
    db = await openAdminDatabase({ DATABASE_URL: databaseUrl });
    return await work(db);
  } catch (error) {
    throw new DevStackError(`${what} failed: ${(error as Error).message}`);
  } finally {
    await db?.destroy();
  }
}

/** Whether the organization and environment of a previous run are still in the database. */
export async function tenancyExists(databaseUrl: string, orgId: string, envId: string): Promise<boolean> {
  const db = await openDatabase(databaseUrl);
  try {
    return (await getEnvironment(db, envId))?.org_id === orgId;
  } catch {
    return false; // no schema yet: nothing to re-use
  } finally {
    await db.destroy();
  }
}

/** A full-access test key (`svc_test_...`) for the dev organization: the one place both callers make it. */
async function devKey(db: Db, orgId: string): Promise<string> {
  return (await createApiKey(db, { orgId, type: 'full', live: false })).apiKey;
}

/** A new dev key for the previous run's organization, when the key in dev.json no longer works. */
export async function createDevKey(databaseUrl: string, orgId: string): Promise<string> {
  return withAdminDatabase(databaseUrl, 'making the dev API key', (db) => devKey(db, orgId));
}

export async function createDevTenancy(databaseUrl: string): Promise<DevTenancy> {
  return withAdminDatabase(databaseUrl, 'making the dev organization, environment and API key', async (db) => {
    const org = await createOrganization(db, { name: 'Kino dev' });
    const env = await createEnvironment(db, { orgId: org.id, name: 'development' });
    return { orgId: org.id, envId: env.id, apiKey: await devKey(db, org.id) };
  });
}

/** Whether the key lists the environment through the API: the proof a client can use dev.json. */
export async function keyListsEnvironment(apiUrl: string, tenancy: DevTenancy): Promise<boolean> {
  const response = await fetch(`${apiUrl}/${tenancy.orgId}/environments`, {
    headers: { 'X-Api-Key': tenancy.apiKey },
    signal: AbortSignal.timeout(5000),
  });
  if (response.status !== 200) return false;
  const payload = (await response.json()) as { body?: { environments?: { id: string }[] } };
  return payload.body?.environments?.some((environment) => environment.id === tenancy.envId) ?? false;
}

/** Makes the dev user a member of the dev organization (idempotent). */
export async function ensureDevMember(databaseUrl: string, orgId: string, email: string): Promise<void> {
  await withAdminDatabase(databaseUrl, `making ${email} a member of ${orgId}`, async (db) => {
    await addOrganizationMember(db, orgId, email);
  });
}
