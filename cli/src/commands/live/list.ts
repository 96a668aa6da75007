import { Flags } from '@oclif/core';
import type { LiveStreamList } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';

export default class LiveList extends ApiCommand {
  static override description = 'List the live streams of the environment, newest first.';
  static override flags = {
    page: Flags.integer({ min: 1, default: 1 }),
    'page-size': Flags.integer({ min: 1, max: 100, default: 20 }),
  };

  async run(): Promise<LiveStreamList> {
    const { flags } = await this.parse(LiveList);
    const { kino, orgId, envId } = await this.api(flags, ['apiUrl', 'apiKey', 'orgId', 'envId']);
    const list = await kino.liveStreams.list(orgId, envId, { page: flags.page, pageSize: flags['page-size'] });
    if (!this.jsonEnabled()) {
      const { formatDate, printTable } = await import('../../output.ts');
      await printTable(
        list.liveStreams.map((s) => ({
          id: s.liveStreamId,
          name: s.name,
          status: s.status,
          latency: s.latency,
          access: s.allowPublicAccess ? 'public' : 'private',
          created: formatDate(s.createdAt),
        })),
        [
          { key: 'id', name: 'ID' },
          { key: 'name', name: 'Name' },
          { key: 'status', name: 'Status' },
          { key: 'latency', name: 'Latency' },
          { key: 'access', name: 'Access' },
          { key: 'created', name: 'Created' },
        ],
        'no live streams',
      );
    }
    return list;
  }
}
