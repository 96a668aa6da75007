import { Args } from '@oclif/core';
import type { LiveStream } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { printLiveStream } from '../../live-streams.ts';

export default class LiveResetKey extends ApiCommand {
  static override description =
    "Replace a live stream's key: the old key stops working at once (a publisher using it is disconnected).";
  static override args = { id: Args.string({ description: 'live stream id (ls_…)', required: true }) };

  async run(): Promise<LiveStream> {
    const { args, flags } = await this.parse(LiveResetKey);
    const { kino, orgId } = await this.api(flags);
    const stream = await kino.liveStreams.resetStreamKey(orgId, args.id);
    if (!this.jsonEnabled()) printLiveStream(this, stream);
    return stream;
  }
}
