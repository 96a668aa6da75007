// The analytics endpoints' reads from ClickHouse. Every query reads the rollup `segment_daily`
// (infra/src/analytics/rollups.ts) with FINAL, never the raw segment rows: one row per (org, day,
// env, video, height), so a year of an organization is at most days × videos × heights rows.
// Dates are UTC calendar days (YYYY-MM-DD, both bounds inclusive); timestamps come back as
// `YYYY-MM-DD hh:mm:ss` UTC text.
import { clickHouseString, SEGMENT_DAILY_TABLE, type ClickHouseHttp } from '@kino/infra';

/** Which rollup rows a query reads. */
export interface RollupScope {
  orgId: string;
  envId?: string;
  videoId?: string;
  /** Inclusive UTC days, YYYY-MM-DD; omitted bounds are open. */
  from?: string;
  to?: string;
}

/** Resolution categories (the spec's HD ≥ 1080p, SD 720p, LD ≤ 480p; heights in between count as SD). */
export const HD_MIN_HEIGHT = 1080;
export const LD_MAX_HEIGHT = 480;

function where({ orgId, envId, videoId, from, to }: RollupScope): string {
  const conditions = [`org_id = ${clickHouseString(orgId)}`];
  if (envId !== undefined) conditions.push(`env_id = ${clickHouseString(envId)}`);
  if (videoId !== undefined) conditions.push(`video_id = ${clickHouseString(videoId)}`);
  if (from !== undefined) conditions.push(`day >= toDate(${clickHouseString(from)})`);
  if (to !== undefined) conditions.push(`day <= toDate(${clickHouseString(to)})`);
  return conditions.join(' AND ');
}

const table = `${SEGMENT_DAILY_TABLE} FINAL`;

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

export class AnalyticsStore {
  constructor(private readonly clickhouse: ClickHouseHttp) {}

  /** All-time segments per environment, those on or after `since`, and the last one served. */
  async segmentsByEnvironment(scope: RollupScope, since: string): Promise<Map<string, EnvironmentSegments>> {
    const rows = await this.clickhouse.query<{ env_id: string; total: number; since: number; last: string }>(
      `SELECT env_id, sum(segments) AS total, sumIf(segments, day >= toDate(${clickHouseString(since)})) AS since,
              toString(max(last_served)) AS last
       FROM ${table} WHERE ${where(scope)} GROUP BY env_id`,
    );
    return new Map(
      rows.map((r) => [r.env_id, { envId: r.env_id, totalSegments: Number(r.total), segmentsSince: Number(r.since), lastServed: r.last }]),
    );
  }

  /** Segments per day that has any, with distinct videos and the HD/SD/LD split. */
  async segmentsByDay(scope: RollupScope): Promise<DaySegments[]> {
    const rows = await this.clickhouse.query<{ d: string; total: number; videos: number; hd: number; sd: number; ld: number }>(
      `SELECT toString(day) AS d, sum(segments) AS total, uniqExact(video_id) AS videos,
              sumIf(segments, rendition_height >= ${HD_MIN_HEIGHT}) AS hd,
              sumIf(segments, rendition_height > ${LD_MAX_HEIGHT} AND rendition_height < ${HD_MIN_HEIGHT}) AS sd,
              sumIf(segments, rendition_height <= ${LD_MAX_HEIGHT}) AS ld
       FROM ${table} WHERE ${where(scope)} GROUP BY day ORDER BY day`,
    );
    return rows.map((r) => ({
      day: r.d,
      segments: Number(r.total),
      videos: Number(r.videos),
      hd: Number(r.hd),
      sd: Number(r.sd),
      ld: Number(r.ld),
    }));
  }

  /** Segments per rendition height, tallest first. */
  async segmentsByHeight(scope: RollupScope): Promise<HeightSegments[]> {
    const rows = await this.clickhouse.query<{
      height: number;
      total: number;
      videos: number;
      days: number;
      first: string;
      last: string;
    }>(
      `SELECT rendition_height AS height, sum(segments) AS total, uniqExact(video_id) AS videos, uniqExact(day) AS days,
              toString(min(first_served)) AS first, toString(max(last_served)) AS last
       FROM ${table} WHERE ${where(scope)} GROUP BY rendition_height ORDER BY rendition_height DESC`,
    );
    return rows.map((r) => ({
      height: Number(r.height),
      segments: Number(r.total),
      videos: Number(r.videos),
      days: Number(r.days),
      firstServed: r.first,
      lastServed: r.last,
    }));
  }

  /** One video's totals over the scope; undefined when it was never served there. */
  async videoTotals(scope: RollupScope & { videoId: string }): Promise<VideoSegments | undefined> {
    const rows = await this.clickhouse.query<{ total: number; days: number; first: string; last: string }>(
      `SELECT sum(segments) AS total, uniqExact(day) AS days,
              toString(min(first_served)) AS first, toString(max(last_served)) AS last
       FROM ${table} WHERE ${where(scope)} GROUP BY video_id`,
    );
    const row = rows[0];
    return row && { segments: Number(row.total), days: Number(row.days), firstServed: row.first, lastServed: row.last };
  }

  /** All-time segments per video of one organization (the `served` estimate). */
  async segmentsByVideo(orgId: string, videoIds: string[]): Promise<Map<string, number>> {
    if (videoIds.length === 0) return new Map();
    const rows = await this.clickhouse.query<{ video_id: string; total: number }>(
      `SELECT video_id, sum(segments) AS total FROM ${table}
       WHERE org_id = ${clickHouseString(orgId)} AND video_id IN (${videoIds.map(clickHouseString).join(', ')})
       GROUP BY video_id`,
    );
    return new Map(rows.map((r) => [r.video_id, Number(r.total)]));
  }
}
