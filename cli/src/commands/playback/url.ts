import { Args, Flags } from '@oclif/core';
import type { SignedPlaybackUrl } from '@kino/sdk';
import { playbackExpirations } from '@kino/proto/contract';
import { ApiCommand } from '../../api-command.ts';

export default class PlaybackUrl extends ApiCommand {
  static override description =
    'A signed playback URL (HLS) of a video, valid for --expires, optionally only on some domains.';
  static override examples = [
    '<%= config.bin %> playback url vid_123 --expires 4h --domains example.com,www.example.com',
  ];
  static override args = { id: Args.string({ description: 'video id', required: true }) };
  static override flags = {
    expires: Flags.option({
      options: playbackExpirations,
      description: "how long the URL works (the API's default when unset)",
    })(),
    domains: Flags.string({
      description: 'comma-separated domains the player may run on',
      delimiter: ',',
      multiple: true,
    }),
  };

  async run(): Promise<SignedPlaybackUrl> {
    const { args, flags } = await this.parse(PlaybackUrl);
    const { kino, orgId } = await this.api(flags);
    const signed = await kino.playback.signedUrl(orgId, args.id, { expiration: flags.expires, domains: flags.domains });
    this.log(signed.signed_url);
    this.note(`valid for ${signed.expires_in} s`);
    return signed;
  }
}
