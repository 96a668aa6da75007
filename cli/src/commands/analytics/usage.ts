import { Flags } from '@oclif/core';
import type { UsageRecord } from '@kino/sdk';
import type { Kino } from '@kino/sdk/node';
import { AnalyticsCommand, scopeFlags, type AnalyticsScope, type Output } from '../../analytics-command.ts';

export default class AnalyticsUsage extends AnalyticsCommand<UsageRecord[]> {
  static override description =
    'Usage per environment: videos, minutes stored, segments served, in all and in the --period-days up to --to.';
  static override flags = {
    ...scopeFlags,
    'period-days': Flags.integer({
      description: "the period, in days up to --to (the API's default when unset)",
      min: 1,
    }),
    to: Flags.string({ description: "the period's last day, YYYY-MM-DD (UTC; default today)" }),
  };

  protected read(
    kino: Kino,
    { orgId, envId, endDate }: AnalyticsScope,
    { flags }: { flags: { 'period-days'?: number } },
  ): Promise<UsageRecord[]> {
    return kino.analytics.usage(orgId, { envId, periodDays: flags['period-days'], endDate });
  }

  protected async show(
    usage: UsageRecord[],
    { formatDate, formatDuration, formatNumber, printTable }: Output,
  ): Promise<void> {
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
}
