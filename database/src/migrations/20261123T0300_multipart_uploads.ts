// Multipart uploads (docs/decisions/uploads.md#multipart-uploads): an upload ticket (`uploads` row, so that
// `process` takes its path unchanged) sent in parts straight to storage. The row keeps storage's
// upload id and the part layout; one still open at `uploads.expires_at` is aborted by a sweep.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('multipart_uploads')
    .addColumn('upload_id', 'text', (c) => c.primaryKey().references('uploads.id').onDelete('cascade'))
    .addColumn('storage_upload_id', 'text', (c) => c.notNull())
    .addColumn('part_size', 'bigint', (c) => c.notNull())
    .addColumn('part_count', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('closed_at', 'timestamptz')
    .addCheckConstraint('multipart_uploads_state', sql`state IN ('open', 'completed', 'aborted')`)
    .addCheckConstraint('multipart_uploads_part_count', sql`part_count BETWEEN 1 AND 10000`)
    .execute();
  // The sweep looks only at open uploads.
  await sql`CREATE INDEX multipart_uploads_open_idx ON multipart_uploads (upload_id) WHERE state = 'open'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('multipart_uploads').ifExists().execute();
}
