// Share links on the delivery node (docs/decisions/delivery.md#share-links). `/v1/share/{linkId}/...` serves
// the `/v1` family's files of the link's video with no token: the link id is the credential. Every
// load of the master playlist counts one view in PostgreSQL with a conditional UPDATE, so
// `maxViews` holds across any number of delivery nodes; the other files only need the link to be
// alive (not revoked, not expired), so a viewer who got in can finish watching. `/v1/share/{linkId}`
// is the watch page: the player of player-page.ts, whose files this node serves itself.
import type { Db } from '@kino/database';
import { countShareLinkView, findShareLink } from '@kino/database/repositories';
import { shareLinkPaths } from '@kino/proto/contract';
import { DeliveryError } from './errors.ts';
import { playerPage } from './player-page.ts';

const maxEntries = 50_000;

type LinkState = { videoId: string } | DeliveryError;

export class ShareLinkGate {
  private readonly entries = new Map<string, { state: LinkState; expiresAt: number }>();

  private readonly db: Db;
  private readonly ttlMs: number;
  constructor(
    db: Db,
    /** How long a live link is trusted without asking the database (as the video catalog's TTL). */
    ttlMs: number,
  ) {
    this.db = db;
    this.ttlMs = ttlMs;
  }

  /**
   * The video a link opens. `countView` (master playlists): counts one view, atomically, or
   * refuses a used-up link; otherwise the link only has to be alive.
   */
  async open(linkId: string, { countView }: { countView: boolean }): Promise<string> {
    if (countView) {
      const counted = await countShareLinkView(this.db, linkId);
      if (counted) return counted.video_id;
      throw stateOf(await findShareLink(this.db, linkId), linkId) as DeliveryError;
    }
    const cached = this.entries.get(linkId);
    let state = cached && cached.expiresAt > Date.now() ? cached.state : undefined;
    if (!state) {
      state = stateOf(await findShareLink(this.db, linkId), linkId, { ignoreViews: true });
      if (this.entries.size >= maxEntries) this.entries.clear();
      this.entries.set(linkId, { state, expiresAt: Date.now() + this.ttlMs });
    }
    if (state instanceof DeliveryError) throw state;
    return state.videoId;
  }
}

function stateOf(
  link: Awaited<ReturnType<typeof findShareLink>>,
  linkId: string,
  { ignoreViews = false }: { ignoreViews?: boolean } = {},
): LinkState {
  if (!link) return new DeliveryError(404, 'share_link_not_found', `There is no share link ${linkId}.`);
  if (link.revoked_at)
    return new DeliveryError(410, 'share_link_revoked', "This share link was revoked by the video's owner.");
  if (link.expired)
    return new DeliveryError(410, 'share_link_expired', `This share link expired at ${link.expires_at.toISOString()}.`);
  if (!ignoreViews && link.max_views !== null && link.views >= link.max_views) {
    return new DeliveryError(
      410,
      'share_link_used_up',
      `This share link has been opened ${link.max_views} times, its limit.`,
    );
  }
  return { videoId: link.video_id };
}

/** The watch page of a link: the player (player-page.ts) on its master playlist. */
export function watchPage(linkId: string, oembed: string): Buffer {
  // linkId matched the path pattern ([A-Za-z0-9_-]).
  return playerPage({ title: 'Shared video', src: shareLinkPaths.master(linkId), oembed });
}
