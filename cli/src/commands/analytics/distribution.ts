import type { DistributionEntry } from '@kino/sdk';
import type { Kino } from '@kino/sdk/node';
import {
  AnalyticsCommand,
  dateRangeFlags,
  scopeFlags,
  type AnalyticsScope,
  type Output,
} from '../../analytics-command.ts';

export default class AnalyticsDistribution extends AnalyticsCommand<DistributionEntry[]> {
  static override description = 'Segments served by resolution across videos.';
  static override flags = { ...scopeFlags, ...dateRangeFlags };

  protected read(kino: Kino, { orgId, envId, startDate, endDate }: AnalyticsScope): Promise<DistributionEntry[]> {
    return kino.analytics.resolutionDistribution(orgId, { envId, startDate, endDate });
  }

  protected async show(entries: DistributionEntry[], { formatDate, formatNumber, printTable }: Output): Promise<void> {
    await printTable(
      entries.map((e) => ({
        height: `${e.resolutionHeight}p`,
        served: formatNumber(e.segmentsServed),
        videos: formatNumber(e.uniqueVideos),
        days: formatNumber(e.daysActive),
        first: e.firstServedValid ? formatDate(e.firstServed) : '',
        last: e.lastServedValid ? formatDate(e.lastServed) : '',
      })),
      [
        { key: 'height', name: 'Resolution', numeric: true },
        { key: 'served', name: 'Segments', numeric: true },
        { key: 'videos', name: 'Videos', numeric: true },
        { key: 'days', name: 'Days', numeric: true },
        { key: 'first', name: 'First served' },
        { key: 'last', name: 'Last served' },
      ],
      'nothing served in the period',
    );
  }
}
