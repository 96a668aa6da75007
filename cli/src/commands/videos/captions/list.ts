import { Args } from '@oclif/core';
import type { CaptionTrack } from '@kino/sdk';
import { ApiCommand } from '../../../api-command.ts';

export default class VideosCaptionsList extends ApiCommand {
  static override description = "List a video's caption tracks.";
  static override examples = ['<%= config.bin %> videos captions list vid_123'];
  static override args = { id: Args.string({ description: 'video id', required: true }) };

  async run(): Promise<CaptionTrack[]> {
    const { args, flags } = await this.parse(VideosCaptionsList);
    const { kino, orgId } = await this.api(flags);
    const tracks = await kino.videos.listCaptions(orgId, args.id);
    if (!this.jsonEnabled()) {
      const { printTable } = await import('../../../output.ts');
      await printTable(
        tracks.map((t) => ({
          language: t.language,
          label: t.label,
          default: t.default ? 'yes' : '',
          source: t.source,
          url: t.url,
        })),
        [
          { key: 'language', name: 'Language' },
          { key: 'label', name: 'Label' },
          { key: 'default', name: 'Default' },
          { key: 'source', name: 'Source' },
          { key: 'url', name: 'URL' },
        ],
        'no caption tracks',
      );
    }
    return tracks;
  }
}
