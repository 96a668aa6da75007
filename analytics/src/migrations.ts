// The analytics schema in ClickHouse, as numbered migrations recorded in a `schema_migrations`
// table. Every statement runs on chDB 26 and on ClickHouse 18.16 alike, and is idempotent
// (IF NOT EXISTS). One process migrates: the API, as it migrates PostgreSQL (it reads the
// analytics and runs the rollups). Delivery nodes only write rows: they check the schema is there
// (`assertClickHouseMigrated`) and keep their rows spooled until it is.
import type { ClickHouseHttp } from './clickhouse.ts';
import { toClickHouseDateTime } from './clickhouse.ts';
import {
  SEGMENT_DAILY_TABLE,
  SEGMENT_ENV_DAILY_TABLE,
  SEGMENT_HEIGHT_DAILY_TABLE,
  SEGMENT_ROLLUP_MARKS_TABLE,
  SEGMENT_ROLLUP_PROGRESS_TABLE,
  SEGMENT_VIDEO_DAILY_TABLE,
  SEGMENT_VIDEO_MONTHLY_TABLE,
} from './rollups.ts';
import { PLAYBACK_VIEWS_TABLE, playbackViewColumnsDdl } from './playback-view.ts';
import { PLAYBACK_EVENTS_TABLE, PLAYBACK_VIEW_MARKS_TABLE, playbackEventColumnsDdl } from './playback-event.ts';
import { PLAYBACK_FOLD_PROGRESS_TABLE } from './playback-fold.ts';
import { experienceRollupMigration } from './experience-rollups.ts';
import { SEGMENT_DELIVERIES_TABLE, segmentDeliveryColumnsDdl } from './segment-row.ts';

/**
 * Marks every day that has raw rows for the rollup refresher: after rows arrived other than through
 * the delivery shipper (rows logged before the rollups existed, a restored backup).
 */
export const markEveryServedDay = `INSERT INTO ${SEGMENT_ROLLUP_MARKS_TABLE} (org_id, day, marked_at)
  SELECT DISTINCT org_id, toDate(served_at), now() FROM ${SEGMENT_DELIVERIES_TABLE}`;

export interface ClickHouseMigration {
  version: number;
  name: string;
  statements: string[];
}

export const clickHouseMigrations: ClickHouseMigration[] = [
  {
    version: 1,
    name: 'segment_deliveries',
    statements: [
      // One row per media segment a delivery node served. `row_id` is unique per row; a spool
      // batch that is shipped twice (a node killed after the insert but before it forgot the
      // batch) repeats row ids, and ReplacingMergeTree keeps one of each. Queries that must count
      // exactly read the table with FINAL (or count distinct row_id).
      // The columns are segment-row.ts's, declared once there.
      `CREATE TABLE IF NOT EXISTS ${SEGMENT_DELIVERIES_TABLE} (
        ${segmentDeliveryColumnsDdl()}
      ) ENGINE = ReplacingMergeTree
      PARTITION BY toYYYYMM(served_at)
      ORDER BY (org_id, env_id, video_id, served_at, row_id)`,
    ],
  },
  {
    version: 2,
    name: 'segment_rollups',
    statements: [
      // The rollup the analytics endpoints read (rollups.ts says how it stays exact). Version column
      // `segments`: the largest count computed for a key is the true one.
      `CREATE TABLE IF NOT EXISTS ${SEGMENT_DAILY_TABLE} (
        org_id String,
        day Date,
        env_id String,
        video_id String,
        rendition_height UInt16,
        segments UInt64,
        first_served DateTime('UTC'),
        last_served DateTime('UTC')
      ) ENGINE = ReplacingMergeTree(segments)
      PARTITION BY toYYYYMM(day)
      ORDER BY (org_id, day, env_id, video_id, rendition_height)`,
      // Days whose raw rows changed, written by the delivery shipper after each batch.
      `CREATE TABLE IF NOT EXISTS ${SEGMENT_ROLLUP_MARKS_TABLE} (
        org_id String,
        day Date,
        marked_at DateTime('UTC')
      ) ENGINE = MergeTree
      PARTITION BY toYYYYMM(marked_at)
      ORDER BY (marked_at, org_id, day)`,
      // How far the refreshers got through the marks.
      `CREATE TABLE IF NOT EXISTS ${SEGMENT_ROLLUP_PROGRESS_TABLE} (
        id UInt8,
        watermark DateTime('UTC')
      ) ENGINE = ReplacingMergeTree(watermark)
      ORDER BY id`,
      // Rows logged before this migration: mark their days so the first refresh rolls them up.
      markEveryServedDay,
    ],
  },
  {
    version: 3,
    name: 'segment_rollups_by_grain',
    statements: [
      // Coarser rollups derived from `segment_daily` (rollups.ts): each endpoint reads the smallest
      // one that answers it. Version column `segments` everywhere, as in `segment_daily`. Partitioned
      // by year: a query over a year opens one or two partitions' parts, not twelve.
      // One video's days, ordered by video: the per-video endpoint reads a few granules.
      `CREATE TABLE IF NOT EXISTS ${SEGMENT_VIDEO_DAILY_TABLE} (
        org_id String,
        video_id String,
        day Date,
        env_id String,
        rendition_height UInt16,
        segments UInt64,
        first_served DateTime('UTC'),
        last_served DateTime('UTC')
      ) ENGINE = ReplacingMergeTree(segments)
      PARTITION BY toYear(day)
      ORDER BY (org_id, video_id, day, rendition_height)`,
      // Per (day, environment, height): usage, daily's HD/SD/LD split, the distribution's counts.
      // `videos`: distinct videos served that day in that environment at that height.
      `CREATE TABLE IF NOT EXISTS ${SEGMENT_HEIGHT_DAILY_TABLE} (
        org_id String,
        day Date,
        env_id String,
        rendition_height UInt16,
        segments UInt64,
        videos UInt64,
        first_served DateTime('UTC'),
        last_served DateTime('UTC')
      ) ENGINE = ReplacingMergeTree(segments)
      PARTITION BY toYear(day)
      ORDER BY (org_id, day, env_id, rendition_height)`,
      // Per (day, environment): distinct videos served that day (daily's uniqueVideosServed).
      `CREATE TABLE IF NOT EXISTS ${SEGMENT_ENV_DAILY_TABLE} (
        org_id String,
        day Date,
        env_id String,
        segments UInt64,
        videos UInt64,
        first_served DateTime('UTC'),
        last_served DateTime('UTC')
      ) ENGINE = ReplacingMergeTree(segments)
      PARTITION BY toYear(day)
      ORDER BY (org_id, day, env_id)`,
      // Per (month, environment, height, video): distinct videos over whole months (the
      // distribution) and all-time segments per video (`served`) in 12 rows a year per video and height.
      `CREATE TABLE IF NOT EXISTS ${SEGMENT_VIDEO_MONTHLY_TABLE} (
        org_id String,
        month Date,
        env_id String,
        rendition_height UInt16,
        video_id String,
        segments UInt64
      ) ENGINE = ReplacingMergeTree(segments)
      PARTITION BY toYear(month)
      ORDER BY (org_id, month, env_id, rendition_height, video_id)`,
      // Days rolled up before this migration: mark them again so the refresher fills the new tables.
      markEveryServedDay,
    ],
  },
  {
    version: 4,
    name: 'playback_views',
    statements: [
      // One row per view a player reported (playback-view.ts), what experience analytics read.
      // Ordered by day first: every experience query names a date range.
      `CREATE TABLE IF NOT EXISTS ${PLAYBACK_VIEWS_TABLE} (
        ${playbackViewColumnsDdl()}
      ) ENGINE = ReplacingMergeTree(version)
      PARTITION BY toYYYYMM(day)
      ORDER BY (org_id, day, env_id, video_id, view_id)`,
    ],
  },
  {
    version: 5,
    name: 'playback_events',
    statements: [
      // One row per beacon event delivery accepted (playback-event.ts). `event_id` is unique per
      // event; a spool batch shipped twice repeats its ids and ReplacingMergeTree keeps one (the
      // fold counts distinct ids). Ordered by view: the fold reads whole views.
      `CREATE TABLE IF NOT EXISTS ${PLAYBACK_EVENTS_TABLE} (
        ${playbackEventColumnsDdl()}
      ) ENGINE = ReplacingMergeTree
      PARTITION BY toYYYYMM(received_at)
      ORDER BY (org_id, view_id, event_id)`,
      // Views whose events changed, written by the delivery shipper after each batch (playback-fold.ts).
      `CREATE TABLE IF NOT EXISTS ${PLAYBACK_VIEW_MARKS_TABLE} (
        org_id String,
        view_id String,
        marked_at DateTime('UTC')
      ) ENGINE = MergeTree
      PARTITION BY toYYYYMM(marked_at)
      ORDER BY (marked_at, org_id, view_id)`,
      // How far the fold's refreshers got through the marks.
      `CREATE TABLE IF NOT EXISTS ${PLAYBACK_FOLD_PROGRESS_TABLE} (
        id UInt8,
        watermark DateTime('UTC')
      ) ENGINE = ReplacingMergeTree(watermark)
      ORDER BY id`,
    ],
  },
  {
    version: 6,
    name: 'experience_rollups',
    // The daily tables the experience endpoints read (experience-rollups.ts), and marks on every day
    // already viewed so the first refresh fills them.
    statements: experienceRollupMigration(),
  },
];

export async function migrateClickHouse(client: ClickHouseHttp): Promise<number[]> {
  await client.exec(
    `CREATE TABLE IF NOT EXISTS schema_migrations (
      version UInt32,
      name String,
      applied_at DateTime('UTC')
    ) ENGINE = ReplacingMergeTree ORDER BY version`,
  );
  const applied = new Set(
    (await client.query<{ version: number }>('SELECT version FROM schema_migrations FINAL')).map((r) => r.version),
  );
  const ran: number[] = [];
  for (const migration of [...clickHouseMigrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    for (const statement of migration.statements) await client.exec(statement);
    await client.insert('schema_migrations', [
      { version: migration.version, name: migration.name, applied_at: toClickHouseDateTime(new Date()) },
    ]);
    ran.push(migration.version);
  }
  return ran;
}

/** Thrown by `assertClickHouseMigrated` while the API has not created (all of) the schema yet. */
export class ClickHouseNotMigratedError extends Error {
  constructor(missing: readonly number[]) {
    super(`the analytics schema lacks migrations ${missing.join(', ')} (the API creates it at start)`);
    this.name = 'ClickHouseNotMigratedError';
  }
}

/**
 * Throws `ClickHouseNotMigratedError` unless every migration this code knows has run: what a
 * process that writes to ClickHouse but does not migrate it (a delivery node) checks first.
 */
export async function assertClickHouseMigrated(client: ClickHouseHttp): Promise<void> {
  const versions = await client
    .query<{ version: number }>('SELECT version FROM schema_migrations FINAL')
    .catch((error: unknown) => {
      // ClickHouse's UNKNOWN_TABLE: nothing migrated yet.
      if ((error as { code?: string }).code === '60') return [];
      throw error;
    });
  const applied = new Set(versions.map((r) => Number(r.version)));
  const missing = clickHouseMigrations.map((m) => m.version).filter((v) => !applied.has(v));
  if (missing.length > 0) throw new ClickHouseNotMigratedError(missing);
}

/**
 * Migrates the analytics schema, retrying every `retryMs` while the store is unreachable (the API
 * starts whether or not it is up, and delivery nodes wait for the schema). `migrated()` says
 * whether it has succeeded (the API's /health reports analytics failing until then); `stop()` ends
 * the retries.
 */
export function migrateClickHouseInBackground(
  client: ClickHouseHttp,
  {
    retryMs = 2_000,
    onMigrated,
    onError,
  }: { retryMs?: number; onMigrated: (versions: number[]) => void; onError: (error: unknown) => void },
): { migrated(): boolean; stop(): void } {
  let stopped = false;
  let migrated = false;
  let timer: NodeJS.Timeout | undefined;
  const attempt = () => {
    migrateClickHouse(client).then(
      (versions) => {
        migrated = true;
        onMigrated(versions);
      },
      (error: unknown) => {
        if (stopped) return;
        onError(error);
        timer = setTimeout(attempt, retryMs);
        timer.unref();
      },
    );
  };
  attempt();
  return {
    migrated: () => migrated,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
