// Audio tracks added to a ready video (docs/decisions/encoding.md#audio): put one for a language
// (processing, with a rendition key of its own), mark it ready with its rendition in one
// transaction (the moment delivery's master names it) or failed with a reason, list, remove.
import { sql } from 'kysely';
import { alternateAudioKey, isAlternateAudioKey, maxAlternateAudioRenditions } from '@kino/proto/contract';
import type { Db } from '../database.ts';
import type { AudioTrack, Rendition } from '../schema.ts';
import type { NewRendition } from './renditions.ts';

/** A video has been given every alternate audio rendition key there is (maxAlternateAudioRenditions). */
export class AudioRenditionsExhausted extends Error {
  constructor(videoId: string) {
    super(`Video ${videoId} has had ${maxAlternateAudioRenditions} audio tracks, the most a video can.`);
  }
}

/**
 * Whether a video's sound is muxed in its pictures (a source with one track, most uploads): its
 * picture renditions have sound and it has no alternate audio rendition. Adding a track to such a
 * video first makes its sound the alternate rendition `0p-a1` (sound-separation in the orchestrator),
 * so the added tracks' numbers start at 2. An audio-only video (no picture) or a silent one is not.
 */
export function hasSoundInPictures(
  renditions: readonly Pick<Rendition, 'key' | 'width' | 'audio_bitrate_kbps'>[],
): boolean {
  if (renditions.some((r) => isAlternateAudioKey(r.key))) return false;
  return renditions.some((r) => r.width > 0 && r.audio_bitrate_kbps > 0);
}

/**
 * Creates or replaces the video's track for `language` (one per language), `processing` with a new
 * rendition key: the next after the video's source tracks and every key given before. `replaced`
 * is the track it replaced. A default track takes the default from any other track of the video,
 * in the same transaction (audio_tracks_one_default_idx).
 */
export async function putAudioTrack(
  db: Db,
  input: { videoId: string; language: string; name: string; isDefault: boolean; storagePath: string },
): Promise<{ track: AudioTrack; replaced?: AudioTrack }> {
  return db.transaction().execute(async (trx) => {
    // One change to a video's tracks at a time: the key counter and the default are the video's.
    const video = await trx
      .selectFrom('videos')
      .select('last_audio_rendition')
      .where('id', '=', input.videoId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const keys = await trx
      .selectFrom('renditions')
      .select(['key', 'width', 'audio_bitrate_kbps'])
      .where('video_id', '=', input.videoId)
      .execute();
    // A video whose sound is in its pictures keeps `0p-a1` for that sound (hasSoundInPictures).
    const highestSourceTrack = Math.max(
      hasSoundInPictures(keys) ? 1 : 0,
      ...keys.filter((r) => isAlternateAudioKey(r.key)).map((r) => Number(r.key.slice(r.key.lastIndexOf('a') + 1))),
    );
    const number = Math.max(video.last_audio_rendition, highestSourceTrack) + 1;
    if (number > maxAlternateAudioRenditions) throw new AudioRenditionsExhausted(input.videoId);
    await trx.updateTable('videos').set({ last_audio_rendition: number }).where('id', '=', input.videoId).execute();
    const replaced = await trx
      .selectFrom('audio_tracks')
      .selectAll()
      .where('video_id', '=', input.videoId)
      .where('language', '=', input.language)
      .executeTakeFirst();
    if (input.isDefault) {
      await trx
        .updateTable('audio_tracks')
        .set({ is_default: false })
        .where('video_id', '=', input.videoId)
        .where('language', '<>', input.language)
        .where('is_default', '=', true)
        .execute();
    }
    const values = {
      name: input.name,
      is_default: input.isDefault,
      status: 'processing' as const,
      failure_reason: null,
      storage_path: input.storagePath,
      // alternateAudioKey counts streams from 0: `0p-a1` is stream 0.
      rendition_key: alternateAudioKey(number - 1),
      channels: null,
    };
    const track = await trx
      .insertInto('audio_tracks')
      .values({ video_id: input.videoId, language: input.language, ...values })
      .onConflict((oc) => oc.columns(['video_id', 'language']).doUpdateSet({ ...values, updated_at: sql<Date>`now()` }))
      .returningAll()
      .executeTakeFirstOrThrow();
    return replaced ? { track, replaced } : { track };
  });
}

/** A video's added tracks in language order. */
export async function listAudioTracks(db: Db, videoId: string): Promise<AudioTrack[]> {
  return db.selectFrom('audio_tracks').selectAll().where('video_id', '=', videoId).orderBy('language').execute();
}

/** A ready added track with what the master says of its rendition. */
export type ReadyAudioTrack = AudioTrack & Pick<Rendition, 'codecs' | 'bandwidth' | 'average_bandwidth'>;

/** A video's ready added tracks in language order, each with its rendition's figures (delivery's master). */
export async function listReadyAudioTracks(db: Db, videoId: string): Promise<ReadyAudioTrack[]> {
  return db
    .selectFrom('audio_tracks')
    .innerJoin('renditions', (join) =>
      join
        .onRef('renditions.video_id', '=', 'audio_tracks.video_id')
        .onRef('renditions.key', '=', 'audio_tracks.rendition_key'),
    )
    .selectAll('audio_tracks')
    .select(['renditions.codecs', 'renditions.bandwidth', 'renditions.average_bandwidth'])
    .where('audio_tracks.video_id', '=', videoId)
    .where('audio_tracks.status', '=', 'ready')
    .orderBy('audio_tracks.language')
    .execute();
}

/**
 * The track's rendition made: recorded, and the track `ready`, in one transaction. False when the
 * track was replaced or removed meanwhile (its rendition is then not recorded: nothing names it).
 */
export async function markAudioTrackReady(
  db: Db,
  input: { videoId: string; language: string; renditionKey: string; channels: number; rendition: NewRendition },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('audio_tracks')
      .set({ status: 'ready', channels: input.channels, failure_reason: null, updated_at: sql<Date>`now()` })
      .where('video_id', '=', input.videoId)
      .where('language', '=', input.language)
      .where('rendition_key', '=', input.renditionKey)
      .where('status', '=', 'processing')
      .returning('language')
      .executeTakeFirst();
    if (!updated) return false;
    await trx.insertInto('renditions').values(input.rendition).execute();
    return true;
  });
}

/** The track failed, `reason` in words a user can read; false when it was replaced or removed meanwhile. */
export async function markAudioTrackFailed(
  db: Db,
  input: { videoId: string; language: string; renditionKey: string; reason: string },
): Promise<boolean> {
  const updated = await db
    .updateTable('audio_tracks')
    .set({ status: 'failed', failure_reason: input.reason, updated_at: sql<Date>`now()` })
    .where('video_id', '=', input.videoId)
    .where('language', '=', input.language)
    .where('rendition_key', '=', input.renditionKey)
    .where('status', '=', 'processing')
    .returning('language')
    .executeTakeFirst();
  return updated !== undefined;
}

/**
 * Removes the video's added track for `language`; undefined when it has none. Its rendition stays
 * recorded: a viewer playing it keeps its playlists and segments (the master no longer names it).
 */
export async function deleteAudioTrack(
  db: Db,
  { videoId, language }: { videoId: string; language: string },
): Promise<AudioTrack | undefined> {
  return db
    .deleteFrom('audio_tracks')
    .where('video_id', '=', videoId)
    .where('language', '=', language)
    .returningAll()
    .executeTakeFirst();
}

/**
 * A video whose sound was muxed in its pictures, separated: its sound's rendition and its pictures'
 * copies without sound recorded, and its row pointed at the second master (`masterKey`), in one
 * transaction: delivery serves that master, with the added tracks in its audio group, from then.
 * False when it was separated before (the first run's records stand) or the video is gone.
 */
export async function recordSeparatedSound(
  db: Db,
  input: { videoId: string; masterKey: string; renditions: NewRendition[] },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('videos')
      .set({ master_key: input.masterKey })
      .where('id', '=', input.videoId)
      .where('master_key', 'is', null)
      .where('deleted_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!updated) return false;
    await trx.insertInto('renditions').values(input.renditions).execute();
    return true;
  });
}
