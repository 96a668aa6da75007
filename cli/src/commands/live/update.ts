import { Args } from '@oclif/core';
import type { LiveStream } from '@kino/sdk';
import { ApiCommand, UsageError } from '../../api-command.ts';
import { liveStreamSettingFlags, liveStreamSettingsOf, printLiveStream } from '../../live-streams.ts';

export default class LiveUpdate extends ApiCommand {
  static override description = "Change a live stream's settings (a broadcast running keeps the ones it started with).";
  static override examples = ['<%= config.bin %> live update ls_7Qw2Er4Ty6Ui8Op0 --latency standard --no-public'];
  static override args = { id: Args.string({ description: 'live stream id (ls_…)', required: true }) };
  static override flags = liveStreamSettingFlags;

  async run(): Promise<LiveStream> {
    const { args, flags } = await this.parse(LiveUpdate);
    const changes = liveStreamSettingsOf(flags);
    if (Object.keys(changes).length === 0) throw new UsageError('name at least one setting to change');
    const { kino, orgId } = await this.api(flags);
    const stream = await kino.liveStreams.update(orgId, args.id, changes);
    if (!this.jsonEnabled()) printLiveStream(this, stream);
    return stream;
  }
}
