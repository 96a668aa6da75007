import type { DailyRecord } from '@kino/sdk';
import type { Kino } from '@kino/sdk/node';
import {
  AnalyticsCommand,
  dateRangeFlags,
  scopeFlags,
  type AnalyticsScope,
  type Output,
} from '../../analytics-command.ts';

export default class AnalyticsDaily extends AnalyticsCommand<DailyRecord[]> {
  static override description = 'Segments served per day (UTC), by resolution band (HD ≥ 720p, SD, LD).';
  static override flags = { ...scopeFlags, ...dateRangeFlags };

  protected read(kino: Kino, { orgId, envId, startDate, endDate }: AnalyticsScope): Promise<DailyRecord[]> {
    return kino.analytics.daily(orgId, { envId, startDate, endDate });
  }

  protected async show(days: DailyRecord[], { formatNumber, printTable }: Output): Promise<void> {
    await printTable(
      days.map((d) => ({
        day: d.deliveryDate.slice(0, 10),
        served: formatNumber(d.segmentsServed),
        videos: formatNumber(d.uniqueVideosServed),
        hd: formatNumber(d.hdSegments),
        sd: formatNumber(d.sdSegments),
        ld: formatNumber(d.ldSegments),
      })),
      [
        { key: 'day', name: 'Day' },
        { key: 'served', name: 'Segments', numeric: true },
        { key: 'videos', name: 'Videos', numeric: true },
        { key: 'hd', name: 'HD', numeric: true },
        { key: 'sd', name: 'SD', numeric: true },
        { key: 'ld', name: 'LD', numeric: true },
      ],
      'nothing served in the period',
    );
  }
}
