import { Args, Flags } from '@oclif/core';
import type { VideoDetails } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';

export default class VideosWait extends ApiCommand {
  static override description = 'Wait until videos are processed: exit 0 when all are ready, 3 when one failed.';
  static override strict = false;
  static override args = { id: Args.string({ description: 'video id (several may be given)', required: true }) };
  static override flags = {
    timeout: Flags.integer({ description: 'give up after this many seconds (exit 1)', default: 1800, min: 1 }),
  };

  async run(): Promise<VideoDetails[]> {
    const { argv, flags } = await this.parse(VideosWait);
    const { kino, orgId } = await this.api(flags);
    const { waitForVideos } = await import('../../wait.ts');
    return waitForVideos(kino, orgId, argv as string[], flags.timeout);
  }
}
