// The experience rollups (issue 58): what the experience endpoints read instead of scanning
// `playback_views`, daily tables of sums per grouping, each row with a histogram of its startup
// times, so a query over 90 days reads a few thousand rows however many views there were:
//   - `playback_video_daily`  per (org, video, day, env, browser, OS, height), ordered by video:
//     one video's endpoint, any grouping (a few rows per day of that video);
//   - `playback_env_video_daily` per (org, day, env, video): the organization's and an
//     environment's by-video grouping;
//   - `playback_browser_daily`, `playback_os_daily`, `playback_height_daily` per (org, day, env,
//     browser | OS | height): the other groupings (the height table answers `day` too).
// At 10 million views over 90 days, 1,000 videos and five browsers, OSes and heights they hold
// about 5.9 M, 90,000 and 1,350 rows each.
//
// Recomputed, never incremented, as the segment rollups are (rollups.ts): the fold marks the
// (organization, day) of every view it writes (`markPlaybackRollupDays`), and the rollup refresher
// (`startRollupRefresher`, every API process) recomputes marked days from `playback_views FINAL`
// (one organization's week at a time: a view folded twice counts once, by its last fold), first
// the finest table, then the coarser ones from that recompute's rows. Every row of one recompute
// carries the same `computed_at` (ms), and `playback_rollup_days` records, per (org, day), the
// version the readers use: only that version's rows count, so a key a later recompute no longer
// has (a view refolded onto another height) drops out, and an older recompute that lands late is
// ignored. ReplacingMergeTree(computed_at) merges a key's older versions away.
//
// Startup percentiles come from the histogram: each started view's startup time is rounded up to
// its bucket's upper edge (`startupBucketMs`), the rows keep (edge, count) pairs merged with
// `sumMap`, and p50/p95 are read as quantileExact would read them (the value at 0-based position
// ⌊q·n⌋ of the sorted times), which is the bucket edge of the exact figure: exact to the bucket.
import type { ClickHouseHttp } from './clickhouse.ts';
import { clickHouseString } from './clickhouse.ts';
import { PLAYBACK_VIEWS_TABLE } from './playback-view.ts';
import { readFreshMarks, type SeenMarks } from './rollup-marks.ts';

export const PLAYBACK_VIDEO_DAILY_TABLE = 'playback_video_daily';
export const PLAYBACK_ENV_VIDEO_DAILY_TABLE = 'playback_env_video_daily';
export const PLAYBACK_BROWSER_DAILY_TABLE = 'playback_browser_daily';
export const PLAYBACK_OS_DAILY_TABLE = 'playback_os_daily';
export const PLAYBACK_HEIGHT_DAILY_TABLE = 'playback_height_daily';
export const PLAYBACK_ROLLUP_DAYS_TABLE = 'playback_rollup_days';
export const PLAYBACK_ROLLUP_MARKS_TABLE = 'playback_rollup_marks';
export const PLAYBACK_ROLLUP_PROGRESS_TABLE = 'playback_rollup_progress';

const DAYS_PER_RECOMPUTE = 7;

/**
 * The startup histogram's buckets: up to 2 s in steps of 10 ms, to 10 s in steps of 50 ms, to 60 s
 * in steps of 500 ms, above that in steps of 10 s. A startup time counts in the bucket of the first
 * edge at or above it (0 ms is its own bucket), so a reported percentile is at most one step above
 * the exact one: by less than 10 ms below 2 s.
 */
export const startupBuckets = [
  { upToMs: 2_000, stepMs: 10 },
  { upToMs: 10_000, stepMs: 50 },
  { upToMs: 60_000, stepMs: 500 },
  { upToMs: Infinity, stepMs: 10_000 },
] as const;

/** A startup time's bucket: its upper edge in ms. */
export function startupBucketMs(ms: number): number {
  const { stepMs } = startupBuckets.find((b) => ms <= b.upToMs)!;
  return Math.ceil(ms / stepMs) * stepMs;
}

/** `startupBucketMs` in SQL, of a UInt32 column. */
function startupBucketSql(column: string): string {
  const branches = startupBuckets.map(({ upToMs, stepMs }) => {
    const edge = `intDiv(${column} + ${stepMs - 1}, ${stepMs}) * ${stepMs}`;
    return upToMs === Infinity ? edge : `${column} <= ${upToMs}, ${edge}`;
  });
  return `toUInt32(multiIf(${branches.join(', ')}))`;
}

/**
 * The value at 0-based position ⌊q·n⌋ of the sorted times (quantileExact's), read from a merged
 * histogram (`edges` ascending, `counts` beside them); 0 when it is empty.
 */
export function histogramQuantile(edges: readonly number[], counts: readonly number[], q: number): number {
  const n = counts.reduce((sum, c) => sum + c, 0);
  const position = Math.min(n - 1, Math.floor(q * n));
  let seen = 0;
  for (let i = 0; i < edges.length; i++) {
    seen += counts[i]!;
    if (seen > position) return edges[i]!;
  }
  return 0;
}

/** The sums every rollup row holds, as computed from `playback_views` and as merged from finer rows. */
const sums = {
  views: ['count()', 'sum(views)'],
  watch_ms: ['sum(watch_ms)', 'sum(watch_ms)'],
  rebuffer_ms: ['sum(rebuffer_ms)', 'sum(rebuffer_ms)'],
  rebuffers: ['sum(rebuffer_count)', 'sum(rebuffers)'],
  failures: ['countIf(failed = 1)', 'sum(failures)'],
  play_requests: ['countIf(play_requested = 1)', 'sum(play_requests)'],
  exits: ['countIf(play_requested = 1 AND started = 0 AND failed = 0)', 'sum(exits)'],
} as const;
const sumNames = Object.keys(sums).join(', ');
const sumAliases = Object.keys(sums)
  .map((name) => `s_${name}`)
  .join(', ');

/** The column list of a rollup table with `key` columns first. */
function rollupColumnsDdl(key: string): string {
  return `${key},
        views UInt64, watch_ms UInt64, rebuffer_ms UInt64, rebuffers UInt64, failures UInt64,
        play_requests UInt64, exits UInt64,
        startup_edges_ms Array(UInt32), startup_counts Array(UInt64),
        computed_at UInt64`;
}

/** One rollup table: its key, in the order of its ORDER BY. */
const rollupTables = {
  [PLAYBACK_VIDEO_DAILY_TABLE]: ['org_id', 'video_id', 'day', 'env_id', 'browser', 'os', 'rendition_height'],
  [PLAYBACK_ENV_VIDEO_DAILY_TABLE]: ['org_id', 'day', 'env_id', 'video_id'],
  [PLAYBACK_BROWSER_DAILY_TABLE]: ['org_id', 'day', 'env_id', 'browser'],
  [PLAYBACK_OS_DAILY_TABLE]: ['org_id', 'day', 'env_id', 'os'],
  [PLAYBACK_HEIGHT_DAILY_TABLE]: ['org_id', 'day', 'env_id', 'rendition_height'],
} as const;
const keyTypes: Record<string, string> = {
  org_id: 'String',
  video_id: 'String',
  day: 'Date',
  env_id: 'String',
  browser: 'String',
  os: 'String',
  rendition_height: 'UInt16',
};

/** Migration 6's statements: the rollup tables, their version and bookkeeping tables, and marks for the views already folded. */
export function experienceRollupMigration(): string[] {
  const tables = Object.entries(rollupTables).map(
    ([table, key]) => `CREATE TABLE IF NOT EXISTS ${table} (
        ${rollupColumnsDdl(key.map((k) => `${k} ${keyTypes[k]}`).join(', '))}
      ) ENGINE = ReplacingMergeTree(computed_at)
      PARTITION BY toYYYYMM(day)
      ORDER BY (${key.join(', ')})`,
  );
  return [
    ...tables,
    // Per (organization, day): the recompute whose rows the readers count.
    `CREATE TABLE IF NOT EXISTS ${PLAYBACK_ROLLUP_DAYS_TABLE} (
        org_id String,
        day Date,
        computed_at UInt64
      ) ENGINE = ReplacingMergeTree(computed_at)
      ORDER BY (org_id, day)`,
    // Days whose views the fold wrote, for the refresher.
    `CREATE TABLE IF NOT EXISTS ${PLAYBACK_ROLLUP_MARKS_TABLE} (
        org_id String,
        day Date,
        marked_at DateTime('UTC')
      ) ENGINE = MergeTree
      PARTITION BY toYYYYMM(marked_at)
      ORDER BY (marked_at, org_id, day)`,
    `CREATE TABLE IF NOT EXISTS ${PLAYBACK_ROLLUP_PROGRESS_TABLE} (
        id UInt8,
        watermark DateTime('UTC')
      ) ENGINE = ReplacingMergeTree(watermark)
      ORDER BY id`,
    markEveryViewedDay,
  ];
}

/** Marks every day that has views: views folded before the rollups existed, a restored backup. */
export const markEveryViewedDay = `INSERT INTO ${PLAYBACK_ROLLUP_MARKS_TABLE} (org_id, day, marked_at)
  SELECT DISTINCT org_id, day, now() FROM ${PLAYBACK_VIEWS_TABLE}`;

/** Marks the (organization, day) of folded views; call after the views were inserted. */
export async function markPlaybackRollupDays(
  client: ClickHouseHttp,
  views: readonly { org_id: string | number; day: string | number }[],
): Promise<void> {
  const pairs = new Set(
    views.map((v) => `(${clickHouseString(String(v.org_id))}, ${clickHouseString(String(v.day))})`),
  );
  if (pairs.size === 0) return;
  await client.exec(
    `INSERT INTO ${PLAYBACK_ROLLUP_MARKS_TABLE} (org_id, day, marked_at)
     SELECT pair.1, toDate(pair.2), now() FROM (SELECT arrayJoin([${[...pairs].join(', ')}]) AS pair)`,
  );
}

const dayList = (days: readonly string[]) => days.map((d) => `toDate(${clickHouseString(d)})`).join(', ');

/**
 * Recomputes some days of one organization: the finest table from the views (FINAL: each view by
 * its last fold), the coarser tables from those rows, then the days' version for the readers.
 */
export async function recomputeExperienceDays(
  client: ClickHouseHttp,
  orgId: string,
  days: readonly string[],
  computedAt = Date.now(),
): Promise<void> {
  if (days.length === 0) return;
  const org = clickHouseString(orgId);
  const insert = (table: string, key: readonly string[], computed: string, from: string) =>
    client.exec(
      `INSERT INTO ${table} (${key.join(', ')}, ${sumNames}, startup_edges_ms, startup_counts, computed_at)
       SELECT ${key.join(', ')}, ${sumAliases}, startup.1, startup.2, ${computedAt}
       FROM (SELECT ${key.join(', ')}, ${computed} FROM ${from} GROUP BY ${key.join(', ')})`,
    );
  // Aliased apart from the columns they sum: ClickHouse would read `sum(watch_ms) AS watch_ms` inside itself.
  const fromViews = Object.entries(sums).map(([name, [expression]]) => `${expression} AS s_${name}`);
  await insert(
    PLAYBACK_VIDEO_DAILY_TABLE,
    rollupTables[PLAYBACK_VIDEO_DAILY_TABLE],
    [...fromViews, `sumMapIf([${startupBucketSql('startup_ms')}], [toUInt64(1)], started = 1) AS startup`].join(', '),
    `${PLAYBACK_VIEWS_TABLE} FINAL WHERE org_id = ${org} AND day IN (${dayList(days)})`,
  );
  const fromFinest = Object.entries(sums).map(([name, [, merge]]) => `${merge} AS s_${name}`);
  for (const [table, key] of Object.entries(rollupTables)) {
    if (table === PLAYBACK_VIDEO_DAILY_TABLE) continue;
    await insert(
      table,
      key,
      [...fromFinest, 'sumMap(startup_edges_ms, startup_counts) AS startup'].join(', '),
      `${PLAYBACK_VIDEO_DAILY_TABLE} WHERE org_id = ${org} AND day IN (${dayList(days)}) AND computed_at = ${computedAt}`,
    );
  }
  // Last: readers switch to this recompute only once all of its rows are in.
  await client.exec(
    `INSERT INTO ${PLAYBACK_ROLLUP_DAYS_TABLE} (org_id, day, computed_at)
     SELECT ${org}, day, ${computedAt} FROM (SELECT arrayJoin([${dayList(days)}]) AS day)`,
  );
}

/** One pass over the marks since the watermark: recomputes every marked day. Returns how many (organization, day) pairs. */
export async function refreshExperienceRollups(client: ClickHouseHttp, seen: SeenMarks = new Map()): Promise<number> {
  const marks = await readFreshMarks(client, PLAYBACK_ROLLUP_MARKS_TABLE, PLAYBACK_ROLLUP_PROGRESS_TABLE, seen);
  let recomputed = 0;
  for (const [orgId, days] of marks.daysByOrg) {
    for (let i = 0; i < days.length; i += DAYS_PER_RECOMPUTE)
      await recomputeExperienceDays(client, orgId, days.slice(i, i + DAYS_PER_RECOMPUTE));
    recomputed += days.length;
  }
  await marks.handled();
  return recomputed;
}

/** The rollup table that answers a grouping: the finest (ordered by video) for one video's. */
export function experienceRollupOf(
  grouping: 'day' | 'video' | 'browser' | 'os' | 'rendition',
  oneVideo: boolean,
): string {
  if (oneVideo) return PLAYBACK_VIDEO_DAILY_TABLE;
  return {
    day: PLAYBACK_HEIGHT_DAILY_TABLE,
    video: PLAYBACK_ENV_VIDEO_DAILY_TABLE,
    browser: PLAYBACK_BROWSER_DAILY_TABLE,
    os: PLAYBACK_OS_DAILY_TABLE,
    rendition: PLAYBACK_HEIGHT_DAILY_TABLE,
  }[grouping];
}

/**
 * The condition that keeps the rows of each (organization, day)'s current recompute only, for the
 * days that `days` (a condition on `org_id` and `day`) selects.
 */
export function currentExperienceRows(days: string): string {
  return `(org_id, day, computed_at) IN (SELECT org_id, day, max(computed_at) FROM ${PLAYBACK_ROLLUP_DAYS_TABLE}
    WHERE ${days} GROUP BY org_id, day)`;
}
