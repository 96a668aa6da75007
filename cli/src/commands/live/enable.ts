import { Args } from '@oclif/core';
import type { LiveStream } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { printLiveStream } from '../../live-streams.ts';

export default class LiveEnable extends ApiCommand {
  static override description = 'Enable a live stream again: its key publishes.';
  static override args = { id: Args.string({ description: 'live stream id (ls_…)', required: true }) };

  async run(): Promise<LiveStream> {
    const { args, flags } = await this.parse(LiveEnable);
    const { kino, orgId } = await this.api(flags);
    const stream = await kino.liveStreams.enable(orgId, args.id);
    if (!this.jsonEnabled()) printLiveStream(this, stream);
    return stream;
  }
}
