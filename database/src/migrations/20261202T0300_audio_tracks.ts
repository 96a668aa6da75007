// Audio tracks added to a ready video (docs/decisions/encoding.md#audio, "A track added to a ready
// video"): one per video and language, each made into an alternate audio rendition of its own key
// (`0p-a<N>`). `videos.last_audio_rendition` is the highest N given out, so a key is never given
// twice, even to a track replaced before its rendition existed. Deleting the video removes its
// tracks with it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audio_tracks')
    .addColumn('video_id', 'text', (c) => c.notNull().references('videos.id').onDelete('cascade'))
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('processing'))
    .addColumn('failure_reason', 'text')
    .addColumn('storage_path', 'text', (c) => c.notNull())
    .addColumn('rendition_key', 'text', (c) => c.notNull())
    .addColumn('channels', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('audio_tracks_pkey', ['video_id', 'language'])
    .addCheckConstraint('audio_tracks_status_known', sql`status IN ('processing', 'ready', 'failed')`)
    .execute();
  // At most one default added track per video: the player's choice must be unambiguous.
  await db.schema
    .createIndex('audio_tracks_one_default_idx')
    .on('audio_tracks')
    .column('video_id')
    .unique()
    .where(sql.ref('is_default'), '=', true)
    .execute();
  await db.schema
    .alterTable('videos')
    .addColumn('last_audio_rendition', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').dropColumn('last_audio_rendition').execute();
  await db.schema.dropTable('audio_tracks').ifExists().execute();
}
