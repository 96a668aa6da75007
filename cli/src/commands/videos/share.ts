import { Args, Flags } from '@oclif/core';
import type { ShareLink } from '@kino/sdk';
import { ApiCommand } from '../../api-command.ts';

export default class VideosShare extends ApiCommand {
  static override description =
    'Make a share link to a video (a page and a direct URL), optionally expiring, limited in views, or for one viewer.';
  static override examples = ['<%= config.bin %> videos share vid_123 --expires-hours 48 --max-views 10'];
  static override args = { id: Args.string({ description: 'video id', required: true }) };
  static override flags = {
    'expires-hours': Flags.integer({
      description: "hours until the link expires (the API's default when unset)",
      min: 1,
    }),
    'max-views': Flags.integer({ description: 'views before the link stops working', min: 1 }),
    email: Flags.string({ description: 'the viewer the link is for (recorded, not mailed)' }),
  };

  async run(): Promise<ShareLink> {
    const { args, flags } = await this.parse(VideosShare);
    const { kino, orgId } = await this.api(flags);
    const link = await kino.videos.share(orgId, args.id, {
      expirationHours: flags['expires-hours'],
      maxViews: flags['max-views'],
      viewerEmail: flags.email,
    });
    const { formatDate } = await import('../../output.ts');
    this.log(link.shareUrl);
    this.note(
      `direct: ${link.directUrl}\nexpires ${formatDate(link.expiresAt)}${link.maxViews ? `, at most ${link.maxViews} views` : ''}`,
    );
    return link;
  }
}
