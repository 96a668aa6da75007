import type { HttpClient } from '../http.ts';
import type {
  DailyRecord,
  DateRangeParams,
  DistributionEntry,
  StorageRecord,
  UsageRecord,
  VideoResolutions,
} from '../types.ts';

// The Analytics endpoints (docs/analytics.md). Days are UTC; an environment key sees its own
// environment only. Bad parameters reject with BadRequestError whose `code` is
// `invalid_period_days`, `invalid_date`, `invalid_date_range` or `date_range_too_long`.

/** Every analytics call but the per-video one can be narrowed to one environment. */
export interface AnalyticsScope {
  envId?: string;
  signal?: AbortSignal;
}

export class Analytics {
  constructor(private readonly http: HttpClient) {}

  private path(orgId: string, envId: string | undefined, tail: string): string {
    const env = envId ? `/environments/${encodeURIComponent(envId)}` : '';
    return `/${encodeURIComponent(orgId)}${env}/analytics/${tail}`;
  }

  /**
   * Usage per environment over the last `periodDays` (1..365, default 30).
   * @example
   * const usage = await kino.analytics.usage(orgId, { periodDays: 7 });
   * console.log(usage.map((u) => `${u.envId}: ${u.segmentsServedInPeriod} segments`));
   */
  async usage(orgId: string, { periodDays, envId, signal }: AnalyticsScope & { periodDays?: number } = {}): Promise<UsageRecord[]> {
    const body = await this.http.request<{ usage: UsageRecord[] }>('GET', this.path(orgId, envId, 'usage'), { signal, query: { periodDays } });
    return body.usage;
  }

  /**
   * Segments served per day (UTC), split into HD, SD and LD; every day of the range, at most 365
   * days. Defaults: `endDate` today, `startDate` 30 days before it.
   * @example
   * const days = await kino.analytics.daily(orgId, { startDate: '2026-01-01', endDate: '2026-01-31' });
   */
  async daily(orgId: string, { startDate, endDate, envId, signal }: AnalyticsScope & DateRangeParams = {}): Promise<DailyRecord[]> {
    const body = await this.http.request<{ dailyUsage: DailyRecord[] }>('GET', this.path(orgId, envId, 'daily'), {
      signal,
      query: { startDate, endDate },
    });
    return body.dailyUsage;
  }

  /**
   * Videos that exist now (deleted ones excluded) and their duration per quality preset.
   * @example
   * const { totalVideos, totalDurationSeconds } = await kino.analytics.storage(orgId);
   */
  async storage(orgId: string, { envId, signal }: AnalyticsScope = {}): Promise<StorageRecord> {
    const body = await this.http.request<{ storage: StorageRecord }>('GET', this.path(orgId, envId, 'storage'), { signal });
    return body.storage;
  }

  /**
   * How one video was served, per resolution (all time when no dates are given). Deleted videos
   * keep their analytics. No environment variant.
   * @example
   * const { summary, resolutions } = await kino.analytics.resolution(orgId, 'vid_123');
   * console.log(summary.mostPopularResolution, resolutions.length);
   */
  resolution(orgId: string, videoId: string, { startDate, endDate, signal }: DateRangeParams & { signal?: AbortSignal } = {}): Promise<VideoResolutions> {
    return this.http.request('GET', `/${encodeURIComponent(orgId)}/videos/${encodeURIComponent(videoId)}/analytics/resolution`, {
      signal,
      query: { startDate, endDate },
    });
  }

  /**
   * Segments served per resolution across videos, tallest first (all time when no dates are given).
   * @example
   * const distribution = await kino.analytics.resolutionDistribution(orgId, { envId });
   */
  async resolutionDistribution(orgId: string, { startDate, endDate, envId, signal }: AnalyticsScope & DateRangeParams = {}): Promise<DistributionEntry[]> {
    const body = await this.http.request<{ distribution: DistributionEntry[] }>('GET', this.path(orgId, envId, 'resolution-distribution'), {
      signal,
      query: { startDate, endDate },
    });
    return body.distribution;
  }
}
