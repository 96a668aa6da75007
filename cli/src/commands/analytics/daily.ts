import type { DailyRecord } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { dateRangeFlags, scopeFlags } from '../../analytics-flags.ts';

export default class AnalyticsDaily extends ApiCommand {
  static override description = 'Segments served per day (UTC), by resolution band (HD ≥ 720p, SD, LD).';
  static override flags = { ...scopeFlags, ...dateRangeFlags };

  async run(): Promise<DailyRecord[]> {
    const { flags } = await this.parse(AnalyticsDaily);
    const { kino, orgId, envId } = await this.api(flags, flags['all-envs'] ? ['apiUrl', 'apiKey', 'orgId'] : ['apiUrl', 'apiKey', 'orgId', 'envId']);
    const days = await kino.analytics.daily(orgId, { envId: flags['all-envs'] ? undefined : envId, startDate: flags.from, endDate: flags.to });
    if (!this.jsonEnabled()) {
      const { formatNumber, printTable } = await import('../../output.ts');
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
    return days;
  }
}
