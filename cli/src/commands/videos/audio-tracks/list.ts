import { Args } from '@oclif/core';
import type { AudioTrack } from '@kino/sdk';
import { ApiCommand } from '../../../api-command.ts';

export default class VideosAudioTracksList extends ApiCommand {
  static override description = 'List the audio tracks added to a video, with their status.';
  static override examples = ['<%= config.bin %> videos audio-tracks list vid_123'];
  static override args = { id: Args.string({ description: 'video id', required: true }) };

  async run(): Promise<AudioTrack[]> {
    const { args, flags } = await this.parse(VideosAudioTracksList);
    const { kino, orgId } = await this.api(flags);
    const tracks = await kino.videos.listAudioTracks(orgId, args.id);
    if (!this.jsonEnabled()) {
      const { printTable } = await import('../../../output.ts');
      await printTable(
        tracks.map((t) => ({
          language: t.language,
          name: t.name,
          default: t.default ? 'yes' : '',
          status: t.reason ? `${t.status}: ${t.reason}` : t.status,
        })),
        [
          { key: 'language', name: 'Language' },
          { key: 'name', name: 'Name' },
          { key: 'default', name: 'Default' },
          { key: 'status', name: 'Status' },
        ],
        'no added audio tracks',
      );
    }
    return tracks;
  }
}
