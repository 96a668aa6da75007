import type { LiveStream } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';
import { liveStreamSettingFlags, liveStreamSettingsOf, printLiveStream } from '../../live-streams.ts';

export default class LiveCreate extends ApiCommand {
  static override description =
    'Create a live stream in the environment; prints the RTMP and SRT URLs and the stream key to give an encoder (OBS, ffmpeg).';
  static override examples = [
    "<%= config.bin %> live create --name 'Sunday service' --public",
    '<%= config.bin %> live create --latency standard --no-record --json',
  ];
  static override flags = liveStreamSettingFlags;

  async run(): Promise<LiveStream> {
    const { flags } = await this.parse(LiveCreate);
    const { kino, orgId, envId } = await this.api(flags, ['apiUrl', 'apiKey', 'orgId', 'envId']);
    const stream = await kino.liveStreams.create(orgId, envId, liveStreamSettingsOf(flags));
    if (!this.jsonEnabled()) printLiveStream(this, stream);
    return stream;
  }
}
