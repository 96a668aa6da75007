import type { StorageRecord } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { scopeFlags } from '../../analytics-flags.ts';

export default class AnalyticsStorage extends ApiCommand {
  static override description = 'What is stored: videos, their total and average duration, and duration by quality.';
  static override flags = { ...scopeFlags };

  async run(): Promise<StorageRecord> {
    const { flags } = await this.parse(AnalyticsStorage);
    const { kino, orgId, envId } = await this.api(flags, flags['all-envs'] ? ['apiUrl', 'apiKey', 'orgId'] : ['apiUrl', 'apiKey', 'orgId', 'envId']);
    const storage = await kino.analytics.storage(orgId, { envId: flags['all-envs'] ? undefined : envId });
    if (!this.jsonEnabled()) {
      const { formatDuration, formatNumber, printTable } = await import('../../output.ts');
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
    return storage;
  }
}
