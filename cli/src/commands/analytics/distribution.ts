import type { DistributionEntry } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { dateRangeFlags, scopeFlags } from '../../analytics-flags.ts';

export default class AnalyticsDistribution extends ApiCommand {
  static override description = 'Segments served by resolution across videos.';
  static override flags = { ...scopeFlags, ...dateRangeFlags };

  async run(): Promise<DistributionEntry[]> {
    const { flags } = await this.parse(AnalyticsDistribution);
    const { kino, orgId, envId } = await this.api(flags, flags['all-envs'] ? ['apiUrl', 'apiKey', 'orgId'] : ['apiUrl', 'apiKey', 'orgId', 'envId']);
    const entries = await kino.analytics.resolutionDistribution(orgId, { envId: flags['all-envs'] ? undefined : envId, startDate: flags.from, endDate: flags.to });
    if (!this.jsonEnabled()) {
      const { formatDate, formatNumber, printTable } = await import('../../output.ts');
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
    return entries;
  }
}
