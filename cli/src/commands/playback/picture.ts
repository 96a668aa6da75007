import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../api-command.ts';

export default class PlaybackPicture extends ApiCommand {
  static override description =
    "A URL of a picture of a video on the delivery host: the frame at --time, or its default thumbnail; a private video's carries a playback token.";
  static override examples = [
    '<%= config.bin %> playback picture vid_123 --size 640x360 --time 12.5 --format webp',
    '<%= config.bin %> playback picture vid_123 --size 1280x720',
  ];
  static override args = { id: Args.string({ description: 'video id', required: true }) };
  static override flags = {
    size: Flags.string({ description: 'WIDTHxHEIGHT, 16 to 3840 each (cropped to fill)', default: '640x360' }),
    time: Flags.string({ description: 'the moment, in seconds (12.5); unset: the default thumbnail' }),
    format: Flags.option({ options: ['jpg', 'png', 'webp'] as const, default: 'jpg' as const })(),
  };

  async run(): Promise<{ url: string }> {
    const { args, flags } = await this.parse(PlaybackPicture);
    const size = /^(\d{2,4})x(\d{2,4})$/.exec(flags.size);
    if (!size) this.error(`--size ${flags.size}: expected WIDTHxHEIGHT, such as 640x360.`, { exit: 2 });
    if (flags.time !== undefined && !/^\d+(\.\d{1,3})?$/.test(flags.time))
      this.error(`--time ${flags.time}: expected seconds, such as 12.5.`, { exit: 2 });
    const { pictureUrl } = await import('@kino/sdk');
    const { kino, orgId } = await this.api(flags);
    const { signed_url } = await kino.playback.signedUrl(orgId, args.id);
    const url = pictureUrl(signed_url, {
      width: Number(size[1]),
      height: Number(size[2]),
      format: flags.format,
      ...(flags.time !== undefined ? { time: Number(flags.time) } : {}),
    });
    this.log(url);
    return { url };
  }
}
