// The analytics rollups: segments served per (organization, day, environment, video, height) in
// `segment_daily`, and coarser tables derived from it, which the analytics endpoints read instead of
// the raw `segment_deliveries` rows:
//   - `segment_video_daily`   the same rows ordered by video (one video's endpoint);
//   - `segment_height_daily`  per (org, day, env, height), with distinct videos (usage, daily, distribution);
//   - `segment_env_daily`     per (org, day, env), with distinct videos (daily's unique videos);
//   - `segment_video_monthly` per (org, month, env, height, video) (distinct videos over whole
//     months for the distribution, all-time segments per video for `served`).
// At 100 million raw rows over a year, 2,000 videos and five heights these hold about 3.65 M,
// 3.65 M, 5,475, 1,095 and 120,000 rows.
//
// Exact under replays. A rollup that summed rows as they are inserted (a materialized view) would
// count a replayed spool batch twice. So the rollups are never incremented: a day is always
// *recomputed* from the raw rows (counting each `row_id` once), and the result is inserted
// as a new version of each key (ReplacingMergeTree); the coarser tables are then recomputed from
// `segment_daily`'s newest versions of the same days (months for the monthly table).
// The version is the segment count itself: raw rows only grow, so the largest count ever computed
// for a key is the true one, whatever order two refreshers' inserts land in, with no clock involved.
// Readers therefore need no FINAL (slow on ClickHouse 18.16): `latestRows` takes, per key, the
// largest count (and of the other columns the value of that newest version: every column is
// monotone in the raw rows, so max of counts and of last served, min of first served) and then
// sums over keys.
//
// Which days to recompute. After each batch the delivery shipper inserts into `segment_rollup_marks`
// one (org, day) mark per day the batch held, stamped with the store's own clock (`now()`). The
// refresher (run by every API process, `startRollupRefresher`) reads the marks stamped since its
// last pass (minus a minute of overlap for inserts still in flight), recomputes those days and saves
// its watermark in `segment_rollup_progress`; marks it already handled are skipped (it remembers
// how many marks it saw per (org, day, second) for the overlap: two batches can mark the same day in
// the same second, one before a pass and one after, and the second must still count). A batch
// replayed after a crash marks its days again,
// and recomputing is idempotent, so repeating work is harmless; it is missing work that is not,
// hence marks written after the rows and the overlap.
import type { ClickHouseHttp } from './clickhouse.ts';
import { clickHouseString } from './clickhouse.ts';
import { refreshExperienceRollups } from './experience-rollups.ts';
import { readFreshMarks, type SeenMarks } from './rollup-marks.ts';

export const SEGMENT_DAILY_TABLE = 'segment_daily';
export const SEGMENT_VIDEO_DAILY_TABLE = 'segment_video_daily';
export const SEGMENT_HEIGHT_DAILY_TABLE = 'segment_height_daily';
export const SEGMENT_ENV_DAILY_TABLE = 'segment_env_daily';
export const SEGMENT_VIDEO_MONTHLY_TABLE = 'segment_video_monthly';
export const SEGMENT_ROLLUP_MARKS_TABLE = 'segment_rollup_marks';
export const SEGMENT_ROLLUP_PROGRESS_TABLE = 'segment_rollup_progress';

/** How often a refresher looks for marks: rows are visible in the rollup well within 60 s. */
export const ROLLUP_REFRESH_INTERVAL_MS = 10_000;
const DAYS_PER_RECOMPUTE = 7;

/** The (organization, UTC day) pairs of raw rows as they go to ClickHouse (`served_at` is `YYYY-MM-DD hh:mm:ss`). */
export function rollupDaysOf(rows: readonly { org_id: string; served_at: string }[]): { orgId: string; day: string }[] {
  const seen = new Map<string, { orgId: string; day: string }>();
  for (const row of rows) {
    const day = row.served_at.slice(0, 10);
    seen.set(`${row.org_id}\n${day}`, { orgId: row.org_id, day });
  }
  return [...seen.values()];
}

/** Marks days for recomputation; call after their rows were inserted. */
export async function markRollupDays(
  client: ClickHouseHttp,
  days: readonly { orgId: string; day: string }[],
): Promise<void> {
  if (days.length === 0) return;
  const tuples = days.map((d) => `(${clickHouseString(d.orgId)}, ${clickHouseString(d.day)})`).join(', ');
  await client.exec(
    `INSERT INTO ${SEGMENT_ROLLUP_MARKS_TABLE} (org_id, day, marked_at)
     SELECT pair.1, toDate(pair.2), now() FROM (SELECT arrayJoin([${tuples}]) AS pair)`,
  );
}

/**
 * The newest version of each key of a rollup table, without FINAL: one row per `key` with the
 * largest `segments` as `segments` and the other `columns` (`max(c)` / `min(c)` expressions, each
 * monotone in the raw rows) under their own names.
 */
export function latestRows(
  table: string,
  key: readonly string[],
  columns: Record<string, string>,
  where: string,
): string {
  const values = Object.entries(columns)
    .map(([name, expression]) => `, ${expression} AS ${name}`)
    .join('');
  return `SELECT ${key.join(', ')}, max(segments) AS seg${values} FROM ${table} WHERE ${where} GROUP BY ${key.join(', ')}`;
}

const dailyKey = ['org_id', 'day', 'env_id', 'video_id', 'rendition_height'];
const latestDaily = (where: string) =>
  latestRows(SEGMENT_DAILY_TABLE, dailyKey, { first_at: 'min(first_served)', last_at: 'max(last_served)' }, where);

const dayList = (days: readonly string[]) => days.map((d) => `toDate(${clickHouseString(d)})`).join(', ');

/** The days of one organization a refresher pass recomputed. */
export interface RecomputedDays {
  orgId: string;
  days: string[];
}

/** What a refresher pass calls with the days it recomputed, before it counts their marks as handled. */
export type AfterRecompute = (recomputed: readonly RecomputedDays[]) => Promise<void>;

/** Recomputes the rollup rows of some days of one organization from the raw rows, then the daily tables derived from them. */
export async function recomputeRollupDays(
  client: ClickHouseHttp,
  orgId: string,
  days: readonly string[],
): Promise<void> {
  if (days.length === 0) return;
  const org = clickHouseString(orgId);
  // Each row once by counting distinct row ids rather than reading with FINAL: the same number (a
  // replayed row repeats its id), in parallel, and ~40 times faster on ClickHouse 18.16. The
  // served_at bounds let the store skip the partitions and parts outside the days.
  const sorted = [...days].sort();
  const end = new Date(Date.parse(`${sorted.at(-1)!}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  await client.exec(
    `INSERT INTO ${SEGMENT_DAILY_TABLE}
       (org_id, day, env_id, video_id, rendition_height, segments, first_served, last_served)
     SELECT org_id, toDate(served_at) AS day, env_id, video_id, rendition_height,
            uniqExact(row_id) AS segments, min(served_at) AS first_served, max(served_at) AS last_served
     FROM segment_deliveries
     WHERE org_id = ${org} AND served_at >= toDateTime(${clickHouseString(`${sorted[0]!} 00:00:00`)})
       AND served_at < toDateTime(${clickHouseString(`${end} 00:00:00`)}) AND toDate(served_at) IN (${dayList(days)})
     GROUP BY org_id, day, env_id, video_id, rendition_height`,
  );
  const latest = latestDaily(`org_id = ${org} AND day IN (${dayList(days)})`);
  await client.exec(
    `INSERT INTO ${SEGMENT_VIDEO_DAILY_TABLE} (org_id, video_id, day, env_id, rendition_height, segments, first_served, last_served)
     SELECT org_id, video_id, day, env_id, rendition_height, seg, first_at, last_at FROM (${latest})`,
  );
  // A video is in one environment and its key has one height: distinct videos per (day, env, height) are the keys.
  await client.exec(
    `INSERT INTO ${SEGMENT_HEIGHT_DAILY_TABLE} (org_id, day, env_id, rendition_height, segments, videos, first_served, last_served)
     SELECT org_id, day, env_id, rendition_height, sum(seg), count(), min(first_at), max(last_at) FROM (${latest})
     GROUP BY org_id, day, env_id, rendition_height`,
  );
  await client.exec(
    `INSERT INTO ${SEGMENT_ENV_DAILY_TABLE} (org_id, day, env_id, segments, videos, first_served, last_served)
     SELECT org_id, day, env_id, sum(seg), uniqExact(video_id), min(first_at), max(last_at) FROM (${latest})
     GROUP BY org_id, day, env_id`,
  );
}

/** Recomputes the monthly per-video rows of one organization's months (`YYYY-MM` each) from `segment_daily`. */
export async function recomputeRollupMonths(
  client: ClickHouseHttp,
  orgId: string,
  months: readonly string[],
): Promise<void> {
  for (const month of months) {
    const [year, monthNumber] = month.split('-').map(Number) as [number, number];
    const last = new Date(Date.UTC(year, monthNumber, 0)).toISOString().slice(0, 10);
    const range = `day >= toDate(${clickHouseString(`${month}-01`)}) AND day <= toDate(${clickHouseString(last)})`;
    await client.exec(
      `INSERT INTO ${SEGMENT_VIDEO_MONTHLY_TABLE} (org_id, month, env_id, rendition_height, video_id, segments)
       SELECT org_id, toStartOfMonth(day) AS month, env_id, rendition_height, video_id, sum(seg)
       FROM (${latestDaily(`org_id = ${clickHouseString(orgId)} AND ${range}`)})
       GROUP BY org_id, month, env_id, rendition_height, video_id`,
    );
  }
}

/**
 * One pass: recompute every day marked since the saved watermark (`readFreshMarks`).
 * `afterRecompute` runs on what the pass recomputed before the pass counts its marks as handled: if
 * it fails, the next pass recomputes those days and calls it again (the API copies `served` to
 * PostgreSQL there). Returns how many (organization, day) pairs it recomputed.
 */
export async function refreshRollups(
  client: ClickHouseHttp,
  seen: SeenMarks = new Map(),
  afterRecompute?: AfterRecompute,
): Promise<number> {
  const marks = await readFreshMarks(client, SEGMENT_ROLLUP_MARKS_TABLE, SEGMENT_ROLLUP_PROGRESS_TABLE, seen);
  // A week per recompute: a backfill of a year is 52 bounded passes over raw rows, not one huge
  // GROUP BY; then each month that holds a recomputed day, once.
  const recomputed: RecomputedDays[] = [];
  for (const [orgId, days] of marks.daysByOrg) {
    for (let i = 0; i < days.length; i += DAYS_PER_RECOMPUTE)
      await recomputeRollupDays(client, orgId, days.slice(i, i + DAYS_PER_RECOMPUTE));
    await recomputeRollupMonths(client, orgId, [...new Set(days.map((d) => d.slice(0, 7)))]);
    recomputed.push({ orgId, days });
  }
  if (afterRecompute && recomputed.length > 0) await afterRecompute(recomputed);
  await marks.handled();
  return recomputed.reduce((sum, r) => sum + r.days.length, 0);
}

export interface RollupRefresher {
  /** Runs one pass now (after any pass under way); for tests and shutdown. */
  refreshNow(): Promise<number>;
  stop(): void;
}

/** Refreshes the rollups every `intervalMs`; failures are reported and retried at the next tick. */
export function startRollupRefresher(
  client: ClickHouseHttp,
  {
    intervalMs = ROLLUP_REFRESH_INTERVAL_MS,
    onError,
    afterRecompute,
  }: { intervalMs?: number; onError: (error: unknown) => void; afterRecompute?: AfterRecompute },
): RollupRefresher {
  let running: Promise<number> = Promise.resolve(0);
  const seen: SeenMarks = new Map();
  const experienceSeen: SeenMarks = new Map();
  // The segment rollups and the experience rollups (experience-rollups.ts) side by side, each tried
  // whatever becomes of the other: one failing (store errors on one table) must not starve the other.
  const both = async () => {
    const results = await Promise.allSettled([
      refreshRollups(client, seen, afterRecompute),
      refreshExperienceRollups(client, experienceSeen),
    ]);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return results.reduce((sum, r) => sum + (r.status === 'fulfilled' ? r.value : 0), 0);
  };
  const pass = () => (running = running.catch(() => 0).then(both));
  const timer = setInterval(() => pass().catch(onError), intervalMs);
  timer.unref();
  return { refreshNow: pass, stop: () => clearInterval(timer) };
}
