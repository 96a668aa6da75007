// Dashboard sessions (api/src/sessions/sessions.ts decides their rules): rows keyed by the
// SHA-256 of the cookie's opaque id.
import type { Db } from '../database.ts';
import type { DashboardSession, DashboardSessionsTable } from '../schema.ts';
import type { Insertable } from 'kysely';

export type NewDashboardSession = Omit<Insertable<DashboardSessionsTable>, 'created_at' | 'last_seen_at'>;

export async function insertDashboardSession(db: Db, session: NewDashboardSession): Promise<void> {
  await db.insertInto('dashboard_sessions').values(session).execute();
}

export async function findDashboardSession(db: Db, idHash: string): Promise<DashboardSession | undefined> {
  return db.selectFrom('dashboard_sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
}

/** Records fresh tokens after a refresh; `refresh_token` stays when the provider did not rotate it. */
export async function updateDashboardSessionTokens(
  db: Db,
  idHash: string,
  tokens: Pick<DashboardSession, 'access_token' | 'access_expires_at'> &
    Partial<Pick<DashboardSession, 'refresh_token' | 'id_token' | 'claimed_org_ids' | 'email' | 'name'>>,
): Promise<void> {
  const values = Object.fromEntries(Object.entries(tokens).filter(([, value]) => value !== undefined));
  await db.updateTable('dashboard_sessions').set(values).where('id_hash', '=', idHash).execute();
}

/** Marks a session used (the idle limit counts from here). */
export async function touchDashboardSession(db: Db, idHash: string, at: Date): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ last_seen_at: at }).where('id_hash', '=', idHash).execute();
}

export async function deleteDashboardSession(db: Db, idHash: string): Promise<DashboardSession | undefined> {
  return db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).returningAll().executeTakeFirst();
}

/** Drops sessions idle since before `before`. */
export async function deleteDashboardSessionsIdleSince(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('dashboard_sessions').where('last_seen_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
