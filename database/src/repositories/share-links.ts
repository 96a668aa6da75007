import { sql } from 'kysely';
import { randomBase62 } from '@kino/infra';
import type { Db } from '../database.ts';
import type { ShareLink } from '../schema.ts';

/**
 * A link id is the link's only credential (whoever holds it may play the video), so it is long:
 * `shr_` + 24 base62 characters, about 143 random bits.
 */
export function newShareLinkId(): string {
  return `shr_${randomBase62(24)}`;
}

/** Whether an id names a share link (where a video's id may stand, as in a player's beacons). */
export function isShareLinkId(id: string): boolean {
  return id.startsWith('shr_');
}

export async function createShareLink(
  db: Db,
  input: {
    videoId: string;
    orgId: string;
    expiresInHours: number;
    maxViews: number | null;
    viewerEmail: string | null;
  },
): Promise<ShareLink> {
  return db
    .insertInto('share_links')
    .values({
      id: newShareLinkId(),
      video_id: input.videoId,
      org_id: input.orgId,
      expires_at: sql<Date>`now() + make_interval(hours => ${input.expiresInHours})`,
      max_views: input.maxViews,
      viewer_email: input.viewerEmail,
      revoked_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A video's links that are not revoked (expired and used-up ones included), oldest first. */
export async function listShareLinks(db: Db, videoId: string): Promise<ShareLink[]> {
  return db
    .selectFrom('share_links')
    .selectAll()
    .where('video_id', '=', videoId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Revokes a link of this video; undefined when it has no such link or it was already revoked. */
export async function revokeShareLink(
  db: Db,
  { videoId, linkId }: { videoId: string; linkId: string },
): Promise<ShareLink | undefined> {
  return db
    .updateTable('share_links')
    .set({ revoked_at: sql<Date>`now()` })
    .where('id', '=', linkId)
    .where('video_id', '=', videoId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function findShareLink(db: Db, linkId: string): Promise<(ShareLink & { expired: boolean }) | undefined> {
  return db
    .selectFrom('share_links')
    .selectAll()
    .select(sql<boolean>`expires_at <= now()`.as('expired'))
    .where('id', '=', linkId)
    .executeTakeFirst();
}

/**
 * Counts one view (a master-playlist load) of a live link, atomically: the conditional UPDATE lets
 * at most `max_views` loads through however many delivery nodes race for it. Undefined when the
 * link is missing, revoked, expired or used up (findShareLink tells which).
 */
export async function countShareLinkView(db: Db, linkId: string): Promise<ShareLink | undefined> {
  return db
    .updateTable('share_links')
    .set({ views: sql<number>`views + 1` })
    .where('id', '=', linkId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .where((eb) => eb.or([eb('max_views', 'is', null), eb('views', '<', eb.ref('max_views'))]))
    .returningAll()
    .executeTakeFirst();
}
