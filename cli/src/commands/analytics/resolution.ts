import { Args } from '@oclif/core';
import type { VideoResolutions } from '@kino/sdk';
import type { Kino } from '@kino/sdk/node';
import { AnalyticsCommand, dateRangeFlags, type AnalyticsScope, type Output } from '../../analytics-command.ts';

export default class AnalyticsResolution extends AnalyticsCommand<VideoResolutions> {
  static override description = 'How one video was served, by resolution: segments, days, first and last time.';
  static override args = { id: Args.string({ description: 'video id', required: true }) };
  static override flags = { ...dateRangeFlags };

  protected read(
    kino: Kino,
    { orgId, startDate, endDate }: AnalyticsScope,
    { args }: { args: { id: string } },
  ): Promise<VideoResolutions> {
    return kino.analytics.resolution(orgId, args.id, { startDate, endDate });
  }

  protected async show(
    result: VideoResolutions,
    { formatDate, formatNumber, printTable }: Output,
    { args }: { args: { id: string } },
  ): Promise<void> {
    const s = result.summary;
    this.log(
      `${s.vidNameValid ? s.vidName : args.id}: ${formatNumber(s.totalSegmentsServed)} segments on ${formatNumber(s.totalDaysServed)} days` +
        (s.mostPopularResolutionValid ? `, mostly ${s.mostPopularResolution}p` : ''),
    );
    await printTable(
      result.resolutions.map((r) => ({
        height: `${r.resolutionHeight}p`,
        served: formatNumber(r.timesServed),
        days: formatNumber(r.daysServed),
        first: r.firstServedValid ? formatDate(r.firstServed) : '',
        last: r.lastServedValid ? formatDate(r.lastServed) : '',
      })),
      [
        { key: 'height', name: 'Resolution', numeric: true },
        { key: 'served', name: 'Segments', numeric: true },
        { key: 'days', name: 'Days', numeric: true },
        { key: 'first', name: 'First served' },
        { key: 'last', name: 'Last served' },
      ],
      'not served in the period',
    );
  }
}
