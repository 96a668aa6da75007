import { Args } from '@oclif/core';
import type { LiveStream } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { printLiveStream } from '../../live-streams.ts';

export default class LiveDisable extends ApiCommand {
  static override description = 'Disable a live stream: ingest refuses its key until it is enabled again.';
  static override args = { id: Args.string({ description: 'live stream id (ls_…)', required: true }) };

  async run(): Promise<LiveStream> {
    const { args, flags } = await this.parse(LiveDisable);
    const { kino, orgId } = await this.api(flags);
    const stream = await kino.liveStreams.disable(orgId, args.id);
    if (!this.jsonEnabled()) printLiveStream(this, stream);
    return stream;
  }
}
