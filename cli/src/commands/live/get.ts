import { Args } from '@oclif/core';
import type { LiveStream } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { printLiveStream } from '../../live-streams.ts';

export default class LiveGet extends ApiCommand {
  static override description =
    'Show a live stream: its status, the RTMP and SRT URLs and stream key an encoder needs, and where it plays.';
  static override args = { id: Args.string({ description: 'live stream id (ls_…)', required: true }) };

  async run(): Promise<LiveStream> {
    const { args, flags } = await this.parse(LiveGet);
    const { kino, orgId } = await this.api(flags);
    const stream = await kino.liveStreams.get(orgId, args.id);
    if (!this.jsonEnabled()) printLiveStream(this, stream);
    return stream;
  }
}
