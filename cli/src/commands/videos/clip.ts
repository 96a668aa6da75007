import { Args, Flags } from '@oclif/core';
import type { ProcessVideoResult } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';

export default class VideosClip extends ApiCommand {
  static override description =
    "Cut a clip out of a ready video: a new video, ready at once, that plays the source's segments covering --start to --end and outlives the source. " +
    'With --frame-accurate it plays exactly --start to --end: its first and last segments are encoded again, so it is transcoding until they are (see `videos wait`).';
  static override examples = [
    '<%= config.bin %> videos clip vid_123 --start 30 --end 45',
    '<%= config.bin %> videos clip vid_123 --start 0 --end 10 --name Teaser --private',
    '<%= config.bin %> videos clip vid_123 --start 12.48 --end 19.2 --frame-accurate',
  ];
  static override args = { id: Args.string({ description: 'the source video id', required: true }) };
  static override flags = {
    start: Flags.string({ description: 'seconds into the source where the clip starts', required: true }),
    end: Flags.string({
      description: "seconds into the source where the clip ends (at most the source's duration)",
      required: true,
    }),
    name: Flags.string({ description: 'the clip\'s name (default: the source\'s with " (clip)")' }),
    public: Flags.boolean({ description: 'playable without a token (default: as the source)', exclusive: ['private'] }),
    private: Flags.boolean({
      description: 'playable with a signed token only (default: as the source)',
      exclusive: ['public'],
    }),
    'frame-accurate': Flags.boolean({
      description: 'play exactly from --start to --end (its first and last segments are encoded again)',
    }),
  };

  async run(): Promise<ProcessVideoResult> {
    const { args, flags } = await this.parse(VideosClip);
    const { UsageError } = await import('../../api-command.ts');
    const seconds = (name: 'start' | 'end') => {
      const value = Number(flags[name]);
      if (flags[name].trim() === '' || !Number.isFinite(value))
        throw new UsageError(`--${name} takes seconds (a number), not ${flags[name]}`);
      return value;
    };
    const { kino, orgId } = await this.api(flags);
    const result = await kino.videos.createClip(orgId, args.id, {
      startTime: seconds('start'),
      endTime: seconds('end'),
      ...(flags.name ? { videoName: flags.name } : {}),
      ...(flags.public ? { allowPublicAccess: true } : flags.private ? { allowPublicAccess: false } : {}),
      ...(flags['frame-accurate'] ? { frameAccurate: true } : {}),
    });
    this.log(result.videoID);
    return result;
  }
}
