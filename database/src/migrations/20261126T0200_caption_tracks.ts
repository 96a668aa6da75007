// Caption tracks (docs/decisions/delivery.md#captions): one WebVTT file per video and language,
// stored under the video's prefix (objectKeys.caption). `source` says who made the track: `uploaded`
// through the API today; an automatic source (speech recognition) can fill a row later without a
// change of shape. Deleting the video removes its tracks with it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('caption_tracks')
    .addColumn('video_id', 'text', (c) => c.notNull().references('videos.id').onDelete('cascade'))
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('uploaded'))
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('caption_tracks_pkey', ['video_id', 'language'])
    .addCheckConstraint('caption_tracks_source_known', sql`source IN ('uploaded', 'generated')`)
    .execute();
  // At most one default track per video: the player's choice must be unambiguous.
  await db.schema
    .createIndex('caption_tracks_one_default_idx')
    .on('caption_tracks')
    .column('video_id')
    .unique()
    .where(sql.ref('is_default'), '=', true)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('caption_tracks').ifExists().execute();
}
