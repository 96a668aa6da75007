import { Args, Flags } from '@oclif/core';
import type { Thumbnail } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';

export default class VideosThumbnail extends ApiCommand {
  static override description =
    "Make a thumbnail of a ready video at a moment of it; --default makes it the video's thumbnail.";
  static override examples = ['<%= config.bin %> videos thumbnail vid_123 --at 12.5 --default'];
  static override args = { id: Args.string({ description: 'video id', required: true }) };
  static override flags = {
    at: Flags.string({ description: 'the moment, in seconds from the start', required: true }),
    default: Flags.boolean({ description: "make it the video's thumbnail" }),
  };

  async run(): Promise<Thumbnail> {
    const { args, flags } = await this.parse(VideosThumbnail);
    const { UsageError } = await import('../../api-command.ts');
    const timestamp = Number(flags.at);
    if (!Number.isFinite(timestamp) || timestamp < 0)
      throw new UsageError(`--at takes seconds (a number ≥ 0), not ${flags.at}`);
    const { kino, orgId } = await this.api(flags);
    const thumbnail = await kino.videos.createThumbnail(orgId, args.id, { timestamp, setAsDefault: flags.default });
    this.log(thumbnail.url);
    return thumbnail;
  }
}
