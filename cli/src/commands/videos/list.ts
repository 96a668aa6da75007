import { Flags } from '@oclif/core';
import type { Video } from '@kino/sdk';
import { videoStatuses } from '@kino/proto/contract';
import { ApiCommand } from '../../api-command.ts';

export default class VideosList extends ApiCommand {
  static override description = 'List the videos of the environment, newest first (every page up to --limit).';
  static override examples = [
    '<%= config.bin %> videos list --status ready --limit 20',
    '<%= config.bin %> videos list --search trailer --json',
    '<%= config.bin %> videos list --live-stream ls_123',
  ];

  static override flags = {
    status: Flags.option({ options: videoStatuses, description: 'only videos in this state' })(),
    search: Flags.string({ description: 'text the name contains' }),
    'external-id': Flags.string({
      description: 'only the videos with this metadata.externalId (set with `videos update`)',
    }),
    'live-stream': Flags.string({ description: "only this live stream's broadcasts (ls_…)" }),
    sort: Flags.option({
      options: ['created_at', 'name', 'duration', 'status'] as const,
      description: 'sort key',
      default: 'created_at',
    })(),
    asc: Flags.boolean({ description: 'ascending order (default descending)' }),
    limit: Flags.integer({ description: 'at most this many videos', min: 1, default: 100 }),
  };

  async run(): Promise<Video[]> {
    const { flags } = await this.parse(VideosList);
    const { kino, orgId, envId } = await this.api(flags, ['apiUrl', 'apiKey', 'orgId', 'envId']);
    const videos: Video[] = [];
    const pages = kino.videos.list(orgId, envId, {
      status: flags.status,
      search: flags.search,
      externalId: flags['external-id'],
      liveStreamId: flags['live-stream'],
      sortBy: flags.sort,
      sortDir: flags.asc ? 'asc' : 'desc',
      pageSize: Math.min(flags.limit, 100),
    });
    for await (const video of pages) {
      videos.push(video);
      if (videos.length >= flags.limit) break;
    }
    if (!this.jsonEnabled()) {
      const { formatDate, printTable } = await import('../../output.ts');
      await printTable(
        videos.map((v) => ({
          id: v.id,
          name: v.name,
          status: v.status,
          duration: v.duration,
          quality: v.videoQuality,
          public: v.allowPublicAccess ? 'yes' : 'no',
          created: formatDate(v.createdAt),
        })),
        [
          { key: 'id', name: 'ID' },
          { key: 'name', name: 'Name' },
          { key: 'status', name: 'Status' },
          { key: 'duration', name: 'Duration', numeric: true },
          { key: 'quality', name: 'Quality' },
          { key: 'public', name: 'Public' },
          { key: 'created', name: 'Created' },
        ],
        'no videos',
      );
    }
    return videos;
  }
}
