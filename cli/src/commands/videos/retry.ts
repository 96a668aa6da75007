import { Args, Flags } from '@oclif/core';
import type { RetryVideoResult, VideoDetails } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';

export default class VideosRetry extends ApiCommand {
  static override description =
    'Process a failed video again; --wait follows it to `ready` (exit 0) or `failed` (exit 3).';
  static override args = { id: Args.string({ description: 'video id', required: true }) };
  static override flags = {
    wait: Flags.boolean({ description: 'wait until the video is ready or failed' }),
    timeout: Flags.integer({ description: 'with --wait: give up after this many seconds', default: 1800, min: 1 }),
  };

  async run(): Promise<RetryVideoResult | VideoDetails> {
    const { args, flags } = await this.parse(VideosRetry);
    const { kino, orgId } = await this.api(flags);
    const result = await kino.videos.retry(orgId, args.id);
    this.note(`Retrying ${result.videoID}`);
    if (!flags.wait) return result;
    const { waitForVideos } = await import('../../wait.ts');
    const [video] = await waitForVideos(kino, orgId, [args.id], flags.timeout);
    return video!;
  }
}
