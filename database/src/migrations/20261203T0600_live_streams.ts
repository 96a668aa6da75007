// Live streams (issue 56): one row a stream, in an environment. Each broadcast is a video (its id in
// active_video_id while it runs, then last_video_id), so deleting a stream leaves its recordings; a
// video deleted meanwhile only clears the reference. The stream key is kept twice: its SHA-256,
// unique, which ingest looks the stream up by, and sealed, so that the API can show it again.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('live_streams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('allow_public_access', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('latency', 'text', (c) => c.notNull())
    .addColumn('video_quality', 'text')
    .addColumn('record', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('reconnect_window_seconds', 'integer', (c) => c.notNull())
    .addColumn('stream_key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('stream_key_sealed', 'text', (c) => c.notNull())
    .addColumn('disabled_at', 'timestamptz')
    .addColumn('active_video_id', 'text', (c) => c.references('videos.id').onDelete('set null'))
    .addColumn('last_video_id', 'text', (c) => c.references('videos.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('live_streams_latency_known', sql`latency IN ('low', 'standard')`)
    .addCheckConstraint('live_streams_reconnect_window', sql`reconnect_window_seconds BETWEEN 0 AND 300`)
    .execute();
  // The environment's list, newest first (the videos list's order).
  await db.schema
    .createIndex('live_streams_env_created_idx')
    .on('live_streams')
    .columns(['env_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('live_streams').ifExists().execute();
}
