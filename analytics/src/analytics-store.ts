// The analytics endpoints' reads from ClickHouse. Every query reads a rollup (rollups.ts),
// never the raw segment rows, and the smallest one that answers it: per (day,
// environment) or (day, environment, height) for the organization-wide endpoints (a year is a few
// thousand rows), per (video, day, height) ordered by video for one video, per (month, height,
// video) for distinct videos and `served`. Rollups are read without FINAL (`latestRows`: the newest
// version of each key, then sums), exact because counts only grow. Experience analytics read the
// experience rollups (experience-rollups.ts), each day's current recompute.
// Dates are UTC calendar days (YYYY-MM-DD, both bounds inclusive); timestamps come back as
// `YYYY-MM-DD hh:mm:ss` UTC text.
import { clickHouseString, type ClickHouseHttp } from './clickhouse.ts';
import {
  latestRows,
  SEGMENT_DAILY_TABLE,
  SEGMENT_ENV_DAILY_TABLE,
  SEGMENT_HEIGHT_DAILY_TABLE,
  SEGMENT_VIDEO_DAILY_TABLE,
  SEGMENT_VIDEO_MONTHLY_TABLE,
} from './rollups.ts';
import { currentExperienceRows, experienceRollupOf, histogramQuantile } from './experience-rollups.ts';
import { resolutionBands } from '@kino/proto/contract';

/** Which rollup rows a query reads. */
export interface RollupScope {
  orgId: string;
  envId?: string;
  videoId?: string;
  /** Inclusive UTC days, YYYY-MM-DD; omitted bounds are open. */
  from?: string;
  to?: string;
}

/** Resolution categories (the spec's HD ≥ 1080p, SD 720p, LD ≤ 480p; heights in between count as SD): the contract's. */
const { hdMinHeight: HD_MIN_HEIGHT, ldMaxHeight: LD_MAX_HEIGHT } = resolutionBands;

const date = (day: string) => `toDate(${clickHouseString(day)})`;

function where({ orgId, envId, videoId, from, to }: RollupScope, dayColumn = 'day'): string {
  const conditions = [`org_id = ${clickHouseString(orgId)}`];
  if (envId !== undefined) conditions.push(`env_id = ${clickHouseString(envId)}`);
  if (videoId !== undefined) conditions.push(`video_id = ${clickHouseString(videoId)}`);
  if (from !== undefined) conditions.push(`${dayColumn} >= ${date(from)}`);
  if (to !== undefined) conditions.push(`${dayColumn} <= ${date(to)}`);
  return conditions.join(' AND ');
}

const servedSpan = { first_at: 'min(first_served)', last_at: 'max(last_served)' };
const envDaily = (columns: Record<string, string>, scope: RollupScope) =>
  latestRows(SEGMENT_ENV_DAILY_TABLE, ['org_id', 'day', 'env_id'], columns, where(scope));
const heightDaily = (columns: Record<string, string>, scope: RollupScope) =>
  latestRows(SEGMENT_HEIGHT_DAILY_TABLE, ['org_id', 'day', 'env_id', 'rendition_height'], columns, where(scope));
const videoDaily = (scope: RollupScope & { videoId: string }) =>
  latestRows(SEGMENT_VIDEO_DAILY_TABLE, ['org_id', 'video_id', 'day', 'rendition_height'], servedSpan, where(scope));

const DAY_MS = 86_400_000;
const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const monthStart = (day: string) => `${day.slice(0, 7)}-01`;
const nextMonthStart = (day: string) => {
  const d = new Date(dayMs(monthStart(day)));
  return dayText(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
};

/**
 * An inclusive day range as the whole months inside it (`months`, first days of months, open bounds
 * kept open; absent when it holds none) and the days at its ends outside them.
 */
export function splitIntoMonths(
  from?: string,
  to?: string,
): { months?: { from?: string; to?: string }; days: { from: string; to: string }[] } {
  const firstMonth = from === undefined ? undefined : from === monthStart(from) ? from : nextMonthStart(from);
  // The first day of the last whole month: `to`'s month when `to` is its last day.
  const lastMonth =
    to === undefined
      ? undefined
      : nextMonthStart(to) === dayText(dayMs(to) + DAY_MS)
        ? monthStart(to)
        : dayText(Date.UTC(+to.slice(0, 4), +to.slice(5, 7) - 2, 1));
  if (from !== undefined && to !== undefined && firstMonth! > lastMonth!) return { days: [{ from, to }] };
  const days: { from: string; to: string }[] = [];
  if (from !== undefined && from < firstMonth!) days.push({ from, to: dayText(dayMs(firstMonth!) - DAY_MS) });
  if (to !== undefined && nextMonthStart(lastMonth!) <= to) days.push({ from: nextMonthStart(lastMonth!), to });
  return { months: { from: firstMonth, to: lastMonth }, days };
}

export interface EnvironmentSegments {
  envId: string;
  totalSegments: number;
  segmentsSince: number;
  lastServed: string;
}

export interface DaySegments {
  day: string;
  segments: number;
  videos: number;
  hd: number;
  sd: number;
  ld: number;
}

export interface HeightSegments {
  height: number;
  segments: number;
  videos: number;
  days: number;
  firstServed: string;
  lastServed: string;
}

export interface VideoSegments {
  segments: number;
  days: number;
  firstServed: string;
  lastServed: string;
}

type HeightRow = { height: number; total: number; videos?: number; days: number; first: string; last: string };
const heightSegments = (r: HeightRow, videos: number): HeightSegments => ({
  height: Number(r.height),
  segments: Number(r.total),
  videos,
  days: Number(r.days),
  firstServed: r.first,
  lastServed: r.last,
});

/** What experience figures are grouped by (docs/analytics.md, "Experience analytics"). */
export const experienceGroupings = ['day', 'video', 'browser', 'os', 'rendition'] as const;
export type ExperienceGrouping = (typeof experienceGroupings)[number];

/** Each grouping's key as text: the day `YYYY-MM-DD`, the video id, the browser, the OS, the height (`720`). */
const experienceKeys: Record<ExperienceGrouping, string> = {
  day: 'toString(day)',
  video: 'video_id',
  browser: 'browser',
  os: 'os',
  rendition: 'toString(rendition_height)',
};

/**
 * A page of a non-day grouping's keys (the most viewed first): the default and the most a page holds,
 * as a list of videos pages. Startup percentiles merge one histogram per key and day, so a page
 * bounds that work (all 1,000 videos of 90 days at 10 million views took 1–2 s; a page of 20, tens
 * of milliseconds).
 */
export const EXPERIENCE_PAGE_SIZE = 20;
export const EXPERIENCE_MAX_PAGE_SIZE = 100;

/** Which page of keys a non-day grouping answers (1-based). */
export interface ExperiencePage {
  page: number;
  pageSize: number;
}

/** What one group of views sums to, as the query returns it: the inputs of every experience figure. */
export interface ExperienceSums {
  views: number;
  watchMs: number;
  rebufferMs: number;
  rebuffers: number;
  failures: number;
  playRequests: number;
  exitsBeforeStart: number;
  /** Views that reached their first frame, and their startup times' p50 and p95 (quantileExact's, to the histogram's bucket). */
  starts: number;
  startupP50: number;
  startupP95: number;
}

/** One group's experience figures, Mux Data's definitions (docs/analytics.md). */
export interface ExperienceFigures {
  key: string;
  views: number;
  watchTimeSeconds: number;
  /** Null when no view of the group started. */
  startupMsP50: number | null;
  startupMsP95: number | null;
  rebufferPercent: number;
  rebuffersPerMinute: number;
  failurePercent: number;
  exitsBeforeStartPercent: number;
}

/** A ratio whose empty denominator means "nothing to report": 0 rather than NaN. */
const ratio = (numerator: number, denominator: number) => (denominator === 0 ? 0 : numerator / denominator);

/** The figures of one group from its sums (a group with no views is all zeros, startup null). */
export function experienceFigures(key: string, s: ExperienceSums): ExperienceFigures {
  return {
    key,
    views: s.views,
    watchTimeSeconds: s.watchMs / 1000,
    startupMsP50: s.starts === 0 ? null : s.startupP50,
    startupMsP95: s.starts === 0 ? null : s.startupP95,
    rebufferPercent: 100 * ratio(s.rebufferMs, s.watchMs),
    rebuffersPerMinute: ratio(s.rebuffers, s.watchMs / 60_000),
    failurePercent: 100 * ratio(s.failures, s.views),
    exitsBeforeStartPercent: 100 * ratio(s.exitsBeforeStart, s.playRequests),
  };
}

export const noExperienceSums: ExperienceSums = {
  views: 0,
  watchMs: 0,
  rebufferMs: 0,
  rebuffers: 0,
  failures: 0,
  playRequests: 0,
  exitsBeforeStart: 0,
  starts: 0,
  startupP50: 0,
  startupP95: 0,
};

export class AnalyticsStore {
  private readonly clickhouse: ClickHouseHttp;
  constructor(clickhouse: ClickHouseHttp) {
    this.clickhouse = clickhouse;
  }

  /**
   * All-time segments per environment, those from `since` to `until` (UTC days, both included; no
   * end when omitted), and the last one served.
   */
  async segmentsByEnvironment(
    scope: RollupScope,
    since: string,
    until?: string,
  ): Promise<Map<string, EnvironmentSegments>> {
    const inPeriod = until === undefined ? `day >= ${date(since)}` : `day >= ${date(since)} AND day <= ${date(until)}`;
    const rows = await this.clickhouse.query<{ env_id: string; total: number; since: number; last: string }>(
      `SELECT env_id, sum(seg) AS total, sumIf(seg, ${inPeriod}) AS since, toString(max(last_at)) AS last
       FROM (${envDaily({ last_at: 'max(last_served)' }, scope)}) GROUP BY env_id`,
    );
    return new Map(
      rows.map((r) => [
        r.env_id,
        { envId: r.env_id, totalSegments: Number(r.total), segmentsSince: Number(r.since), lastServed: r.last },
      ]),
    );
  }

  /**
   * Segments per day that has any, with distinct videos and the HD/SD/LD split. Distinct videos of
   * the organization are the sum over environments: a video belongs to one environment.
   */
  async segmentsByDay(scope: RollupScope): Promise<DaySegments[]> {
    const [heights, videos] = await Promise.all([
      this.clickhouse.query<{ d: string; total: number; hd: number; sd: number; ld: number }>(
        `SELECT toString(day) AS d, sum(seg) AS total,
                sumIf(seg, rendition_height >= ${HD_MIN_HEIGHT}) AS hd,
                sumIf(seg, rendition_height > ${LD_MAX_HEIGHT} AND rendition_height < ${HD_MIN_HEIGHT}) AS sd,
                sumIf(seg, rendition_height <= ${LD_MAX_HEIGHT}) AS ld
         FROM (${heightDaily({}, scope)}) GROUP BY day ORDER BY day`,
      ),
      this.clickhouse.query<{ d: string; videos: number }>(
        `SELECT toString(day) AS d, sum(vids) AS videos FROM (${envDaily({ vids: 'max(videos)' }, scope)}) GROUP BY day`,
      ),
    ]);
    const videosByDay = new Map(videos.map((r) => [r.d, Number(r.videos)]));
    return heights.map((r) => ({
      day: r.d,
      segments: Number(r.total),
      videos: videosByDay.get(r.d) ?? 0,
      hd: Number(r.hd),
      sd: Number(r.sd),
      ld: Number(r.ld),
    }));
  }

  /** Segments per rendition height across videos, tallest first. */
  async segmentsByHeight(scope: RollupScope): Promise<HeightSegments[]> {
    const [rows, videos] = await Promise.all([
      this.clickhouse.query<HeightRow>(
        `SELECT rendition_height AS height, sum(seg) AS total, uniqExact(day) AS days,
                toString(min(first_at)) AS first, toString(max(last_at)) AS last
         FROM (${heightDaily(servedSpan, scope)}) GROUP BY rendition_height ORDER BY rendition_height DESC`,
      ),
      this.distinctVideosByHeight(scope),
    ]);
    return rows.map((r) => heightSegments(r, videos.get(Number(r.height)) ?? 0));
  }

  /**
   * Distinct videos served per height over the scope's days: whole months from the monthly rollup,
   * the days at the range's ends from `segment_daily` (at most two partial months).
   */
  private async distinctVideosByHeight(scope: RollupScope): Promise<Map<number, number>> {
    const { months, days } = splitIntoMonths(scope.from, scope.to);
    const parts: string[] = [];
    const tenancy = where({ orgId: scope.orgId, envId: scope.envId });
    if (months)
      parts.push(
        `SELECT rendition_height, video_id FROM ${SEGMENT_VIDEO_MONTHLY_TABLE} WHERE ${where({ ...scope, ...months }, 'month')}`,
      );
    if (days.length > 0) {
      const ranges = days.map((d) => `(day >= ${date(d.from)} AND day <= ${date(d.to)})`).join(' OR ');
      parts.push(`SELECT rendition_height, video_id FROM ${SEGMENT_DAILY_TABLE} WHERE ${tenancy} AND (${ranges})`);
    }
    const rows = await this.clickhouse.query<{ height: number; videos: number }>(
      `SELECT rendition_height AS height, uniqExact(video_id) AS videos FROM (${parts.join(' UNION ALL ')}) GROUP BY rendition_height`,
    );
    return new Map(rows.map((r) => [Number(r.height), Number(r.videos)]));
  }

  /**
   * One video over the scope: its segments per rendition height (tallest first) and its totals
   * (undefined when it was never served there), from one query. Each key of the video's rollup is
   * one (day, height): a height's days are its keys, and the video's days the union of theirs.
   */
  async videoSegments(
    scope: RollupScope & { videoId: string },
  ): Promise<{ heights: HeightSegments[]; totals?: VideoSegments }> {
    const rows = await this.clickhouse.query<HeightRow & { day_list: string[] }>(
      `SELECT rendition_height AS height, sum(seg) AS total, count() AS days, groupArray(toString(day)) AS day_list,
              toString(min(first_at)) AS first, toString(max(last_at)) AS last
       FROM (${videoDaily(scope)}) GROUP BY rendition_height ORDER BY rendition_height DESC`,
    );
    const heights = rows.map((r) => heightSegments(r, 1));
    if (heights.length === 0) return { heights };
    const totals: VideoSegments = {
      segments: heights.reduce((sum, h) => sum + h.segments, 0),
      days: new Set(rows.flatMap((r) => r.day_list)).size,
      // `YYYY-MM-DD hh:mm:ss` text orders as time does.
      firstServed: heights.map((h) => h.firstServed).reduce((a, b) => (b < a ? b : a)),
      lastServed: heights.map((h) => h.lastServed).reduce((a, b) => (b > a ? b : a)),
    };
    return { heights, totals };
  }

  /**
   * All-time segments of every video of one organization served on some days (the `served`
   * estimate, copied to PostgreSQL after a rollup pass recomputed those days), from the monthly
   * rollup; the videos are those with rows in `segment_daily` on the days.
   */
  async segmentsOfVideosServedOn(orgId: string, days: readonly string[]): Promise<Map<string, number>> {
    if (days.length === 0) return new Map();
    const org = clickHouseString(orgId);
    const dayList = days.map((d) => `toDate(${clickHouseString(d)})`).join(', ');
    const latest = latestRows(
      SEGMENT_VIDEO_MONTHLY_TABLE,
      ['org_id', 'month', 'env_id', 'rendition_height', 'video_id'],
      {},
      `org_id = ${org} AND video_id IN (SELECT DISTINCT video_id FROM ${SEGMENT_DAILY_TABLE} WHERE org_id = ${org} AND day IN (${dayList}))`,
    );
    const rows = await this.clickhouse.query<{ video_id: string; total: number }>(
      `SELECT video_id, sum(seg) AS total FROM (${latest}) GROUP BY video_id`,
    );
    return new Map(rows.map((r) => [r.video_id, Number(r.total)]));
  }

  /**
   * The views of the scope summed per key of the grouping, from the experience rollup that answers
   * it (experience-rollups.ts): every day that has views, in order, for `day`; else one page of keys,
   * the most viewed first, and how many keys there are. The keys of the page are ranked on their
   * sums first, so only their histograms are merged; the startup percentiles are read from those.
   * The caller turns sums into figures (`experienceFigures`).
   */
  async experienceSums(
    scope: RollupScope,
    groupBy: ExperienceGrouping,
    page: ExperiencePage = { page: 1, pageSize: EXPERIENCE_PAGE_SIZE },
  ): Promise<{ groups: { key: string; sums: ExperienceSums }[]; totalKeys: number }> {
    const table = experienceRollupOf(groupBy, scope.videoId !== undefined);
    const days = where({ orgId: scope.orgId, from: scope.from, to: scope.to });
    const source = `FROM ${table} WHERE ${where(scope)} AND ${currentExperienceRows(days)}`;
    const key = experienceKeys[groupBy];
    const paged = groupBy !== 'day';
    // `LIMIT offset, count`: the form ClickHouse 18 (Debian's server) reads as well as chDB.
    const pageFilter = paged
      ? ` AND ${key} IN (SELECT k FROM (SELECT ${key} AS k, sum(views) AS ranked_views ${source}
          GROUP BY k ORDER BY ranked_views DESC, k LIMIT ${(page.page - 1) * page.pageSize}, ${page.pageSize}))`
      : '';
    const counted = paged
      ? this.clickhouse.query<{ keys: number }>(`SELECT uniqExact(${key}) AS keys ${source}`)
      : Promise.resolve([]);
    const order = paged ? 'v_views DESC, key' : 'key';
    // Aliases apart from the columns they sum: ClickHouse would read `sum(views) AS views` inside itself.
    const figures = this.clickhouse.query<{
      key: string;
      v_views: number;
      v_watch_ms: number;
      v_rebuffer_ms: number;
      v_rebuffers: number;
      v_failures: number;
      v_play_requests: number;
      v_exits: number;
      startup: [number[], number[]];
    }>(
      `SELECT ${experienceKeys[groupBy]} AS key, sum(views) AS v_views, sum(watch_ms) AS v_watch_ms,
              sum(rebuffer_ms) AS v_rebuffer_ms, sum(rebuffers) AS v_rebuffers, sum(failures) AS v_failures,
              sum(play_requests) AS v_play_requests, sum(exits) AS v_exits,
              sumMap(startup_edges_ms, startup_counts) AS startup
       ${source}${pageFilter}
       GROUP BY key ORDER BY ${order}`,
    );
    const [rows, [total]] = await Promise.all([figures, counted]);
    const groups = rows.map((r) => {
      const [edges, counts] = [r.startup[0].map(Number), r.startup[1].map(Number)];
      return {
        key: r.key,
        sums: {
          views: Number(r.v_views),
          watchMs: Number(r.v_watch_ms),
          rebufferMs: Number(r.v_rebuffer_ms),
          rebuffers: Number(r.v_rebuffers),
          failures: Number(r.v_failures),
          playRequests: Number(r.v_play_requests),
          exitsBeforeStart: Number(r.v_exits),
          starts: counts.reduce((sum, c) => sum + c, 0),
          startupP50: histogramQuantile(edges, counts, 0.5),
          startupP95: histogramQuantile(edges, counts, 0.95),
        },
      };
    });
    return { groups, totalKeys: paged ? Number(total?.keys ?? 0) : groups.length };
  }
}
