import type { APIPromise } from '../api-promise.ts';
import type { CallOptions, HttpClient } from '../http.ts';
import type {
  DailyRecord,
  DateRangeParams,
  DistributionEntry,
  ExperienceGrouping,
  ExperienceRecord,
  StorageRecord,
  UsageRecord,
  VideoResolutions,
} from '../types.ts';

// The Analytics endpoints (docs/analytics.md). Days are UTC; an environment key sees its own
// environment only. Bad parameters reject with BadRequestError whose `code` is
// `invalid_period_days`, `invalid_date`, `invalid_date_range`, `date_range_too_long` or
// `invalid_group_by`.

/** Every analytics call but the per-video one can be narrowed to one environment. */
export interface AnalyticsScope extends CallOptions {
  envId?: string;
}

export class Analytics {
  private readonly http: HttpClient;
  constructor(http: HttpClient) {
    this.http = http;
  }

  private path(orgId: string, envId: string | undefined, tail: string): string {
    const env = envId ? `/environments/${encodeURIComponent(envId)}` : '';
    return `/${encodeURIComponent(orgId)}${env}/analytics/${tail}`;
  }

  /**
   * Usage per environment over the `periodDays` (1..365, default 30) ending with `endDate`
   * (YYYY-MM-DD, UTC; default today).
   * @example
   * const usage = await kino.analytics.usage(orgId, { periodDays: 7, endDate: '2026-11-01' });
   * console.log(usage.map((u) => `${u.envId}: ${u.segmentsServedInPeriod} segments`));
   */
  usage(
    orgId: string,
    { periodDays, endDate, envId, ...options }: AnalyticsScope & { periodDays?: number; endDate?: string } = {},
  ): APIPromise<UsageRecord[]> {
    return this.http
      .request<{ usage: UsageRecord[] }>('GET', this.path(orgId, envId, 'usage'), {
        ...options,
        query: { periodDays, endDate },
      })
      .map((body) => body.usage);
  }

  /**
   * Segments served per day (UTC), split into HD, SD and LD; every day of the range, at most 365
   * days. Defaults: `endDate` today, `startDate` 30 days before it.
   * @example
   * const days = await kino.analytics.daily(orgId, { startDate: '2026-01-01', endDate: '2026-01-31' });
   */
  daily(
    orgId: string,
    { startDate, endDate, envId, ...options }: AnalyticsScope & DateRangeParams = {},
  ): APIPromise<DailyRecord[]> {
    return this.http
      .request<{ dailyUsage: DailyRecord[] }>('GET', this.path(orgId, envId, 'daily'), {
        ...options,
        query: { startDate, endDate },
      })
      .map((body) => body.dailyUsage);
  }

  /**
   * Videos that exist now (deleted ones excluded) and their duration per quality preset.
   * @example
   * const { totalVideos, totalDurationSeconds } = await kino.analytics.storage(orgId);
   */
  storage(orgId: string, { envId, ...options }: AnalyticsScope = {}): APIPromise<StorageRecord> {
    return this.http
      .request<{ storage: StorageRecord }>('GET', this.path(orgId, envId, 'storage'), options)
      .map((body) => body.storage);
  }

  /**
   * How one video was served, per resolution (all time when no dates are given). Deleted videos
   * keep their analytics. No environment variant.
   * @example
   * const { summary, resolutions } = await kino.analytics.resolution(orgId, 'vid_123');
   * console.log(summary.mostPopularResolution, resolutions.length);
   */
  resolution(
    orgId: string,
    videoId: string,
    { startDate, endDate, ...options }: DateRangeParams & CallOptions = {},
  ): APIPromise<VideoResolutions> {
    return this.http.request(
      'GET',
      `/${encodeURIComponent(orgId)}/videos/${encodeURIComponent(videoId)}/analytics/resolution`,
      {
        ...options,
        query: { startDate, endDate },
      },
    );
  }

  /**
   * Segments served per resolution across videos, tallest first (all time when no dates are given).
   * @example
   * const distribution = await kino.analytics.resolutionDistribution(orgId, { envId });
   */
  resolutionDistribution(
    orgId: string,
    { startDate, endDate, envId, ...options }: AnalyticsScope & DateRangeParams = {},
  ): APIPromise<DistributionEntry[]> {
    return this.http
      .request<{ distribution: DistributionEntry[] }>('GET', this.path(orgId, envId, 'resolution-distribution'), {
        ...options,
        query: { startDate, endDate },
      })
      .map((body) => body.distribution);
  }

  /**
   * What viewers lived through (startup time p50/p95, rebuffering, failures, exits before start),
   * per day (every day of the range, the default), video, browser, OS or rendition; for the
   * organization, one environment (`envId`) or one video (`videoId`). Defaults as `daily`. A
   * grouping other than `day` answers a page of keys, the most viewed first (`page`, 1-based;
   * `pageSize`, 20 by default, at most 100).
   * @example
   * const byBrowser = await kino.analytics.experience(orgId, { groupBy: 'browser', startDate: '2026-11-01' });
   * console.log(byBrowser.map((b) => `${b.key}: ${b.startupMsP50} ms, ${b.rebufferPercent.toFixed(2)} %`));
   * const nextVideos = await kino.analytics.experience(orgId, { groupBy: 'video', page: 2, pageSize: 50 });
   */
  experience(
    orgId: string,
    {
      startDate,
      endDate,
      groupBy,
      page,
      pageSize,
      envId,
      videoId,
      ...options
    }: DateRangeParams &
      CallOptions & { groupBy?: ExperienceGrouping; page?: number; pageSize?: number } & (
        { envId?: string; videoId?: undefined } | { videoId: string; envId?: undefined }
      ) = {},
  ): APIPromise<ExperienceRecord[]> {
    const path = videoId
      ? `/${encodeURIComponent(orgId)}/videos/${encodeURIComponent(videoId)}/analytics/experience`
      : this.path(orgId, envId, 'experience');
    return this.http
      .request<{ experience: ExperienceRecord[] }>('GET', path, {
        ...options,
        query: { startDate, endDate, groupBy, page, pageSize },
      })
      .map((body) => body.experience);
  }
}
