import type { Insertable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Rendition, RenditionsTable } from '../db/schema.ts';

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

/** Records (or re-records, after a retried encode) one rung of the ladder. */
export async function upsertRendition(db: Db, rendition: NewRendition): Promise<void> {
  const { video_id: _videoId, key: _key, ...rest } = rendition;
  await db
    .insertInto('renditions')
    .values(rendition)
    .onConflict((oc) => oc.columns(['video_id', 'key']).doUpdateSet(rest))
    .execute();
}

/** Replaces the whole ladder of a video in one transaction. */
export async function replaceRenditions(db: Db, videoId: string, renditions: NewRendition[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('renditions').where('video_id', '=', videoId).execute();
    if (renditions.length > 0) await trx.insertInto('renditions').values(renditions).execute();
  });
}

export async function deleteRenditions(db: Db, videoId: string): Promise<void> {
  await db.deleteFrom('renditions').where('video_id', '=', videoId).execute();
}
