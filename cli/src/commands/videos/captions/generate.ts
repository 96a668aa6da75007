import { Args, Flags } from '@oclif/core';
import type { GeneratingCaptionTrack } from '@kino/sdk';
import { ApiCommand } from '../../../api-command.ts';

export default class VideosCaptionsGenerate extends ApiCommand {
  static override description =
    "Make a caption track from a ready video's speech (`videos captions list` shows it when it is there, source generated).";
  static override examples = [
    '<%= config.bin %> videos captions generate vid_123',
    '<%= config.bin %> videos captions generate vid_123 --language en',
  ];
  static override args = { id: Args.string({ description: 'video id', required: true }) };
  static override flags = {
    language: Flags.string({
      description: 'a language tag the farm transcribes, or auto: the language heard',
      default: 'auto',
    }),
  };

  async run(): Promise<GeneratingCaptionTrack> {
    const { args, flags } = await this.parse(VideosCaptionsGenerate);
    const { kino, orgId } = await this.api(flags);
    const generating = await kino.videos.generateCaptions(orgId, args.id, { language: flags.language });
    this.log(`Generating ${generating.language} captions for ${args.id} from its speech`);
    return generating;
  }
}
