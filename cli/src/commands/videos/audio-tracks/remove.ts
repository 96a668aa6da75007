import { Args } from '@oclif/core';
import type { DeletedAudioTrack } from '@kino/sdk';
import { ApiCommand } from '../../../api-command.ts';

export default class VideosAudioTracksRemove extends ApiCommand {
  static override description = "Remove a video's added audio track for a language.";
  static override examples = ['<%= config.bin %> videos audio-tracks remove vid_123 es'];
  static override args = {
    id: Args.string({ description: 'video id', required: true }),
    language: Args.string({ description: "the track's language tag", required: true }),
  };

  async run(): Promise<DeletedAudioTrack> {
    const { args, flags } = await this.parse(VideosAudioTracksRemove);
    const { kino, orgId } = await this.api(flags);
    const removed = await kino.videos.removeAudioTrack(orgId, args.id, args.language);
    this.log(`Removed the ${removed.language} audio track of ${args.id}`);
    return removed;
  }
}
