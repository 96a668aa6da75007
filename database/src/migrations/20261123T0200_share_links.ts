// Share links (docs/decisions/delivery.md#share-links): a link id that is its own authority to play one video
// on the delivery host, until it expires, is revoked, or has been opened `max_views` times.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('share_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('video_id', 'text', (c) => c.notNull().references('videos.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('max_views', 'integer')
    .addColumn('views', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('viewer_email', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .addCheckConstraint('share_links_views_within_max', sql`max_views IS NULL OR views <= max_views`)
    .execute();
  await db.schema.createIndex('share_links_video_id_idx').on('share_links').column('video_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('share_links').ifExists().execute();
}
