import { sql } from 'kysely';
import type { Db } from '../database.ts';
import type { CaptionSource, CaptionTrack } from '../schema.ts';

/**
 * Creates or replaces the video's track for `language` (one per language); `replacedKey` is the
 * file of the track it replaced, for the caller to remove. A default track takes the default from
 * any other track of the video, in the same transaction, so a video has at most one
 * (caption_tracks_one_default_idx).
 */
export async function putCaptionTrack(
  db: Db,
  input: {
    videoId: string;
    language: string;
    label: string;
    isDefault: boolean;
    source: CaptionSource;
    storageKey: string;
    sizeBytes: number;
  },
): Promise<{ track: CaptionTrack; replacedKey?: string }> {
  return db.transaction().execute(async (trx) => {
    // One change to a video's tracks at a time: two uploads taking the default at once would
    // otherwise each clear the other's before either exists, and both insert a default.
    await trx.selectFrom('videos').select('id').where('id', '=', input.videoId).forUpdate().execute();
    const previous = await trx
      .selectFrom('caption_tracks')
      .select('storage_key')
      .where('video_id', '=', input.videoId)
      .where('language', '=', input.language)
      .forUpdate()
      .executeTakeFirst();
    if (input.isDefault) {
      await trx
        .updateTable('caption_tracks')
        .set({ is_default: false })
        .where('video_id', '=', input.videoId)
        .where('language', '<>', input.language)
        .where('is_default', '=', true)
        .execute();
    }
    const values = {
      label: input.label,
      is_default: input.isDefault,
      source: input.source,
      storage_key: input.storageKey,
      size_bytes: input.sizeBytes,
    };
    const track = await trx
      .insertInto('caption_tracks')
      .values({ video_id: input.videoId, language: input.language, ...values })
      .onConflict((oc) => oc.columns(['video_id', 'language']).doUpdateSet({ ...values, updated_at: sql<Date>`now()` }))
      .returningAll()
      .executeTakeFirstOrThrow();
    return previous && previous.storage_key !== input.storageKey
      ? { track, replacedKey: previous.storage_key }
      : { track };
  });
}

/** A video's tracks in language order (the order of the master playlist's subtitles group). */
export async function listCaptionTracks(db: Db, videoId: string): Promise<CaptionTrack[]> {
  return db.selectFrom('caption_tracks').selectAll().where('video_id', '=', videoId).orderBy('language').execute();
}

/** Removes the video's track for `language`; undefined when it has none. */
export async function deleteCaptionTrack(
  db: Db,
  { videoId, language }: { videoId: string; language: string },
): Promise<CaptionTrack | undefined> {
  return db
    .deleteFrom('caption_tracks')
    .where('video_id', '=', videoId)
    .where('language', '=', language)
    .returningAll()
    .executeTakeFirst();
}
