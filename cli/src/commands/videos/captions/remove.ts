import { Args } from '@oclif/core';
import type { DeletedCaptionTrack } from '@kino/sdk';
import { ApiCommand } from '../../../api-command.ts';

export default class VideosCaptionsRemove extends ApiCommand {
  static override description = "Remove a video's caption track for a language.";
  static override examples = ['<%= config.bin %> videos captions remove vid_123 en'];
  static override args = {
    id: Args.string({ description: 'video id', required: true }),
    language: Args.string({ description: "the track's language tag", required: true }),
  };

  async run(): Promise<DeletedCaptionTrack> {
    const { args, flags } = await this.parse(VideosCaptionsRemove);
    const { kino, orgId } = await this.api(flags);
    const removed = await kino.videos.removeCaption(orgId, args.id, args.language);
    this.log(`Removed the ${removed.language} captions of ${args.id}`);
    return removed;
  }
}
