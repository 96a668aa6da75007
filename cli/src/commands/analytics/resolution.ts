import { Args } from '@oclif/core';
import type { VideoResolutions } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { dateRangeFlags } from '../../analytics-flags.ts';

export default class AnalyticsResolution extends ApiCommand {
  static override description = 'How one video was served, by resolution: segments, days, first and last time.';
  static override args = { id: Args.string({ description: 'video id', required: true }) };
  static override flags = { ...dateRangeFlags };

  async run(): Promise<VideoResolutions> {
    const { args, flags } = await this.parse(AnalyticsResolution);
    const { kino, orgId } = await this.api(flags);
    const result = await kino.analytics.resolution(orgId, args.id, { startDate: flags.from, endDate: flags.to });
    if (!this.jsonEnabled()) {
      const { formatDate, formatNumber, printTable } = await import('../../output.ts');
      const s = result.summary;
      this.log(`${s.vidNameValid ? s.vidName : args.id}: ${formatNumber(s.totalSegmentsServed)} segments on ${formatNumber(s.totalDaysServed)} days` +
        (s.mostPopularResolutionValid ? `, mostly ${s.mostPopularResolution}p` : ''));
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
    return result;
  }
}
