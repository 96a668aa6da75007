// Clips (docs/decisions/delivery.md#clips): a clip is a video of its own whose segments are another video's.
// `clip_of_video_id` is the video it was cut from (what the details show as clipOf), with the range
// asked for; `clip_media_video_id` is the video whose objects its init and media segments are (the
// source, or the source's own media video when a clip is cut from a clip) and `clip_first_segment`
// the media video's segment that is the clip's first. A video whose media a live clip plays keeps
// its objects after it is deleted (the partial index finds those clips).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('videos')
    .addColumn('clip_of_video_id', 'text', (c) => c.references('videos.id'))
    .addColumn('clip_start_seconds', 'double precision')
    .addColumn('clip_end_seconds', 'double precision')
    .addColumn('clip_media_video_id', 'text', (c) => c.references('videos.id'))
    .addColumn('clip_first_segment', 'integer')
    .execute();
  await db.schema
    .alterTable('videos')
    .addCheckConstraint(
      'videos_clip_all_or_none',
      sql`(clip_of_video_id is null) = (clip_media_video_id is null)
        and (clip_of_video_id is null) = (clip_start_seconds is null)
        and (clip_of_video_id is null) = (clip_end_seconds is null)
        and (clip_of_video_id is null) = (clip_first_segment is null)`,
    )
    .execute();
  await db.schema
    .createIndex('videos_live_clips_by_media_idx')
    .on('videos')
    .column('clip_media_video_id')
    .where(sql.ref('deleted_at'), 'is', null)
    .where(sql.ref('clip_media_video_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('videos_live_clips_by_media_idx').ifExists().execute();
  await db.schema.alterTable('videos').dropConstraint('videos_clip_all_or_none').execute();
  await db.schema
    .alterTable('videos')
    .dropColumn('clip_first_segment')
    .dropColumn('clip_media_video_id')
    .dropColumn('clip_end_seconds')
    .dropColumn('clip_start_seconds')
    .dropColumn('clip_of_video_id')
    .execute();
}
