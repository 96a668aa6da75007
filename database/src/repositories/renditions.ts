import type { Insertable } from 'kysely';
import type { Db } from '../database.ts';
import type { Rendition, RenditionsTable } from '../schema.ts';

export type NewRendition = Insertable<RenditionsTable>;

/** A video's ladder, smallest first. */
export async function listRenditions(db: Db, videoId: string): Promise<Rendition[]> {
  return db
    .selectFrom('renditions')
    .selectAll()
    .where('video_id', '=', videoId)
    .orderBy('short_edge_pixels')
    .orderBy('key')
    .execute();
}

/**
 * Replaces the whole ladder of a video, in one transaction: the caller's when `db` is one (a video
 * becoming ready records its ladder with its status), else its own.
 */
export async function replaceRenditions(db: Db, videoId: string, renditions: NewRendition[]): Promise<void> {
  if (!db.isTransaction) return db.transaction().execute((trx) => replaceRenditions(trx, videoId, renditions));
  await db.deleteFrom('renditions').where('video_id', '=', videoId).execute();
  if (renditions.length > 0) await db.insertInto('renditions').values(renditions).execute();
}
