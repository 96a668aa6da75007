import type { StorageRecord } from '@kino/sdk';
import type { Kino } from '@kino/sdk/node';
import { AnalyticsCommand, scopeFlags, type AnalyticsScope, type Output } from '../../analytics-command.ts';

export default class AnalyticsStorage extends AnalyticsCommand<StorageRecord> {
  static override description = 'What is stored: videos, their total and average duration, and duration by quality.';
  static override flags = { ...scopeFlags };

  protected read(kino: Kino, { orgId, envId }: AnalyticsScope): Promise<StorageRecord> {
    return kino.analytics.storage(orgId, { envId });
  }

  protected async show(storage: StorageRecord, { formatDuration, formatNumber, printTable }: Output): Promise<void> {
    await printTable(
      [
        { what: 'Videos', value: formatNumber(storage.totalVideos) },
        { what: 'Total duration', value: formatDuration(storage.totalDurationSeconds) },
        { what: 'Average duration', value: formatDuration(storage.avgVideoDuration) },
        { what: 'Ultra quality', value: formatDuration(storage.ultraQualityDuration) },
        { what: 'High quality', value: formatDuration(storage.highQualityDuration) },
        { what: 'Standard quality', value: formatDuration(storage.standardQualityDuration) },
      ],
      [
        { key: 'what', name: 'Storage' },
        { key: 'value', name: '', numeric: true },
      ],
    );
  }
}
