import { Flags } from '@oclif/core';
import type { UsageRecord } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { scopeFlags } from '../../analytics-flags.ts';

export default class AnalyticsUsage extends ApiCommand {
  static override description = 'Usage per environment: videos, minutes stored, segments served, in all and in the last --period-days.';
  static override flags = {
    ...scopeFlags,
    'period-days': Flags.integer({ description: 'the period, in days up to today (the API\'s default when unset)', min: 1 }),
  };

  async run(): Promise<UsageRecord[]> {
    const { flags } = await this.parse(AnalyticsUsage);
    const { kino, orgId, envId } = await this.api(flags, flags['all-envs'] ? ['apiUrl', 'apiKey', 'orgId'] : ['apiUrl', 'apiKey', 'orgId', 'envId']);
    const usage = await kino.analytics.usage(orgId, { envId: flags['all-envs'] ? undefined : envId, periodDays: flags['period-days'] });
    if (!this.jsonEnabled()) {
      const { formatDate, formatDuration, formatNumber, printTable } = await import('../../output.ts');
      await printTable(
        usage.map((u) => ({
          env: u.envId,
          videos: formatNumber(u.totalVideos),
          duration: formatDuration(u.totalVideoDurationSeconds),
          served: formatNumber(u.totalSegmentsServed),
          uploaded: formatNumber(u.videosUploadedInPeriod),
          servedInPeriod: formatNumber(u.segmentsServedInPeriod),
          first: u.firstVideoUploadedValid ? formatDate(u.firstVideoUploaded) : '',
          last: u.lastSegmentServedValid ? formatDate(u.lastSegmentServed) : '',
        })),
        [
          { key: 'env', name: 'Environment' },
          { key: 'videos', name: 'Videos', numeric: true },
          { key: 'duration', name: 'Duration', numeric: true },
          { key: 'served', name: 'Segments served', numeric: true },
          { key: 'uploaded', name: 'Uploaded (period)', numeric: true },
          { key: 'servedInPeriod', name: 'Served (period)', numeric: true },
          { key: 'first', name: 'First upload' },
          { key: 'last', name: 'Last served' },
        ],
        'no usage yet',
      );
    }
    return usage;
  }
}
