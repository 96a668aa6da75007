import { Args } from '@oclif/core';
import type { DeletedLiveStream } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';

export default class LiveDelete extends ApiCommand {
  static override description =
    'Delete a live stream that is not broadcasting (disable it first); its recordings stay as videos.';
  static override args = { id: Args.string({ description: 'live stream id (ls_…)', required: true }) };

  async run(): Promise<DeletedLiveStream> {
    const { args, flags } = await this.parse(LiveDelete);
    const { kino, orgId } = await this.api(flags);
    const result = await kino.liveStreams.delete(orgId, args.id);
    this.log(`Deleted ${args.id}`);
    return result;
  }
}
