import { sql } from 'kysely';
import type { Db } from '../database.ts';

export interface RateLimitWindow {
  scope: string;
  windowStart: Date;
}

/**
 * Counts one request in each window and returns the new counts. One atomic upsert for all windows,
 * so every API instance sharing the database sees the same counters.
 *
 * Every API call commits this upsert, so its commit does not wait for the WAL to reach the disk
 * (`synchronous_commit = off` for this statement's own transaction, set in its RETURNING so that it
 * costs no round trip of its own): a crash may lose the last few counts, which only lets a few more
 * requests through in that window, harmless for a rate limit. Visibility and atomicity are
 * unchanged: every instance still sees each count once it commits. Pass the database, not a
 * transaction: inside one, the setting would apply to that whole transaction.
 */
export async function incrementRateLimitCounters(db: Db, windows: RateLimitWindow[]): Promise<Map<string, number>> {
  if (windows.length === 0) return new Map();
  const rows = await db
    .insertInto('rate_limit_counters')
    .values(windows.map((w) => ({ scope: w.scope, window_start: w.windowStart, count: 1 })))
    .onConflict((oc) =>
      oc.columns(['scope', 'window_start']).doUpdateSet({ count: sql`rate_limit_counters.count + 1` }),
    )
    .returning(['scope', 'count', sql<string>`set_config('synchronous_commit', 'off', true)`.as('synchronous_commit')])
    .execute();
  return new Map(rows.map((row) => [row.scope, Number(row.count)]));
}

/** Drops windows that ended before `before`. */
export async function deleteRateLimitCountersBefore(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('rate_limit_counters').where('window_start', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
