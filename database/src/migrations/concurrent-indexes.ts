// The indexes of large tables, built with CREATE INDEX CONCURRENTLY after the transactional
// migrations commit: a build takes no lock that blocks writes, so a farm with a million videos keeps
// taking uploads while a new index is made. CONCURRENTLY cannot run in a transaction, and the
// migrator runs every migration in one; hence this list beside it, applied by `migrateToLatest`.
// An index here is never changed in place: a new shape is a new name (and the old one dropped).
import { sql, type Kysely } from 'kysely';

export interface ConcurrentIndex {
  name: string;
  /** What follows `on`: the table, the columns and the predicate. */
  on: string;
}

/** Live videos only (deleted_at is null): what every list reads, and the tie-breakers (created_at, id) of every sort. */
const listScopes = ['env_id', 'org_id'] as const;

export const concurrentIndexes: ConcurrentIndex[] = [
  ...listScopes.flatMap((scope) => {
    const short = scope === 'env_id' ? 'env' : 'org';
    return [
      // sortBy=created_at (the default), date ranges, and deep pages as index-only scans.
      { name: `videos_live_${short}_created_idx`, on: `videos (${scope}, created_at, id) where deleted_at is null` },
      // sortBy=name; `name` is included so the scan that skips deep pages stays index-only.
      {
        name: `videos_live_${short}_name_idx`,
        on: `videos (${scope}, lower(name), created_at, id) include (name) where deleted_at is null`,
      },
      // sortBy=status, and status filters sorted by date.
      {
        name: `videos_live_${short}_status_idx`,
        on: `videos (${scope}, status, created_at, id) where deleted_at is null`,
      },
      // sortBy=duration: videos without a duration sort last in both directions, so one index per direction
      // (asc reads this forwards; desc reads the nulls-first one backwards).
      {
        name: `videos_live_${short}_duration_idx`,
        on: `videos (${scope}, duration_seconds, created_at, id) where deleted_at is null`,
      },
      {
        name: `videos_live_${short}_duration_nulls_first_idx`,
        on: `videos (${scope}, duration_seconds nulls first, created_at, id) where deleted_at is null`,
      },
    ];
  }),
  // search: a substring of the folded name (LIKE on lower(name)), through trigrams. video_search
  // holds live videos only, so the index needs no predicate.
  { name: 'video_search_name_trgm_idx', on: 'video_search using gin (name_folded gin_trgm_ops)' },
  // externalId= on a list: the application's own id for a video, within an organization.
  {
    name: 'videos_live_org_external_id_idx',
    on: 'videos (org_id, external_id) where deleted_at is null and external_id is not null',
  },
  // liveStreamId= on a list: a live stream's broadcasts.
  {
    name: 'videos_live_live_stream_idx',
    on: 'videos (live_stream_id) where deleted_at is null and live_stream_id is not null',
  },
  // The originals sweep's work: uploads not yet settled, by when their ticket expired.
  { name: 'uploads_unsettled_idx', on: 'uploads (expires_at) where settled_at is null' },
];

/** Indexes a new shape replaced, dropped (concurrently too) once the indexes above are built. */
export const retiredIndexes: string[] = [
  // search read videos (ILIKE on name) before video_search.
  'videos_live_name_trgm_idx',
];

/** Session advisory lock: one process builds; the others go on at once (lists work meanwhile, only slower). */
export const CONCURRENT_INDEX_BUILD_LOCK = 7_361_520_001;

/**
 * Creates the missing indexes of `concurrentIndexes`, one at a time, then drops the retired ones. An
 * index left invalid by a build that died (a killed process) is dropped and built again: only the
 * lock holder builds, so an invalid index seen under the lock is never one still being built.
 */
export async function buildConcurrentIndexes(
  db: Kysely<unknown>,
  indexes: ConcurrentIndex[] = concurrentIndexes,
): Promise<void> {
  await db.connection().execute(async (connection) => {
    const { rows } = await sql<{
      locked: boolean;
    }>`select pg_try_advisory_lock(${CONCURRENT_INDEX_BUILD_LOCK}) as locked`.execute(connection);
    if (!rows[0]?.locked) return;
    try {
      for (const index of indexes) {
        const { rows: existing } = await sql<{ valid: boolean }>`
          select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
          where c.relname = ${index.name} and c.relnamespace = current_schema()::regnamespace`.execute(connection);
        if (existing[0]?.valid) continue;
        if (existing[0]) await sql`drop index concurrently if exists ${sql.id(index.name)}`.execute(connection);
        await sql`create index concurrently ${sql.id(index.name)} on ${sql.raw(index.on)}`.execute(connection);
      }
      for (const name of retiredIndexes)
        await sql`drop index concurrently if exists ${sql.id(name)}`.execute(connection);
    } finally {
      await sql`select pg_advisory_unlock(${CONCURRENT_INDEX_BUILD_LOCK})`.execute(connection);
    }
  });
}
