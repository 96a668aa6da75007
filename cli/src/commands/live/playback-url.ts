import { Args, Flags } from '@oclif/core';
import type { SignedPlaybackUrl } from '@kino/sdk';
import { playbackExpirations } from '@kino/proto/contract';
import { ApiCommand } from '../../api-command.ts';

export default class LivePlaybackUrl extends ApiCommand {
  static override description = "A signed URL of a private live stream's master playlist.";
  static override args = { id: Args.string({ description: 'live stream id (ls_…)', required: true }) };
  static override flags = {
    expires: Flags.option({ options: playbackExpirations, description: 'token lifetime', default: '1h' })(),
    domains: Flags.string({ description: 'comma-separated hostnames allowed to play' }),
  };

  async run(): Promise<SignedPlaybackUrl> {
    const { args, flags } = await this.parse(LivePlaybackUrl);
    const { kino, orgId } = await this.api(flags);
    const signed = await kino.liveStreams.playbackUrl(orgId, args.id, {
      expiration: flags.expires,
      ...(flags.domains ? { domains: flags.domains } : {}),
    });
    this.log(signed.signed_url);
    return signed;
  }
}
