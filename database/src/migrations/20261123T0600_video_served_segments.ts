// The all-time segments served per video, copied from the analytics rollups by the API's rollup
// refresher (api/src/served-segments.ts), so that lists and details read the `served`
// estimate with their own indexed PostgreSQL reads instead of a query to ClickHouse per request
// (docs/list-performance.md#served). A new, empty table: no lock on `videos`.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // No foreign key to videos: a copy may name a video this database does not hold (rows served for
  // a video since hard-deleted), and the copy must not fail for it; such rows are never read.
  await db.schema
    .createTable('video_served_segments')
    .addColumn('video_id', 'text', (c) => c.primaryKey())
    .addColumn('segments', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(db.fn('now')))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('video_served_segments').execute();
}
