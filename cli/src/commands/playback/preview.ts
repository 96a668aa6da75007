import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../api-command.ts';

export default class PlaybackPreview extends ApiCommand {
  static override description =
    "A URL of a looping animated preview (WebP or GIF) of a stretch of a video, at most 10 s, on the delivery host; a private video's carries a playback token.";
  static override examples = [
    '<%= config.bin %> playback preview vid_123 --start 10 --end 14 --width 480 --format gif',
  ];
  static override args = { id: Args.string({ description: 'video id', required: true }) };
  static override flags = {
    start: Flags.string({ description: 'seconds (default 0)' }),
    end: Flags.string({ description: 'seconds, at most 10 after --start (default 5 after it, or the end)' }),
    width: Flags.integer({ description: 'pixels, 16 to 640 (default 320)', min: 16, max: 640 }),
    fps: Flags.integer({ description: 'frames a second, 1 to 30 (default 15)', min: 1, max: 30 }),
    format: Flags.option({ options: ['webp', 'gif'] as const, default: 'webp' as const })(),
  };

  async run(): Promise<{ url: string }> {
    const { args, flags } = await this.parse(PlaybackPreview);
    for (const name of ['start', 'end'] as const) {
      const value = flags[name];
      if (value !== undefined && !/^\d+(\.\d{1,3})?$/.test(value))
        this.error(`--${name} ${value}: expected seconds, such as 12.5.`, { exit: 2 });
    }
    const { animatedPreviewUrl } = await import('@kino/sdk');
    const { kino, orgId } = await this.api(flags);
    const { signed_url } = await kino.playback.signedUrl(orgId, args.id);
    const url = animatedPreviewUrl(signed_url, {
      format: flags.format,
      ...(flags.start !== undefined ? { start: Number(flags.start) } : {}),
      ...(flags.end !== undefined ? { end: Number(flags.end) } : {}),
      ...(flags.width !== undefined ? { width: flags.width } : {}),
      ...(flags.fps !== undefined ? { fps: flags.fps } : {}),
    });
    this.log(url);
    return { url };
  }
}
