import { Args, Flags } from '@oclif/core';
import type { Transcript } from '@kino/sdk';
import { ApiCommand } from '../../../api-command.ts';

export default class VideosCaptionsTranscript extends ApiCommand {
  static override description =
    "Print the words of a video's caption track (generated or uploaded); --json prints each cue with its times.";
  static override examples = [
    '<%= config.bin %> videos captions transcript vid_123',
    '<%= config.bin %> videos captions transcript vid_123 --language en --json',
  ];
  static override args = { id: Args.string({ description: 'video id', required: true }) };
  static override flags = {
    language: Flags.string({ description: "the track's language tag (default: the default track, else the first)" }),
  };

  async run(): Promise<Transcript> {
    const { args, flags } = await this.parse(VideosCaptionsTranscript);
    const { kino, orgId } = await this.api(flags);
    const transcript = await kino.videos.transcript(orgId, args.id, {
      ...(flags.language ? { language: flags.language } : {}),
      format: this.jsonEnabled() ? 'json' : 'text',
    });
    this.log(transcript.text);
    return transcript;
  }
}
