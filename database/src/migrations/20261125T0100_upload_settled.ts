// Originals never processed (docs/decisions/uploads.md#originals-never-processed): a sweep looks at each
// upload once its ticket has been expired a day, keeps the original when a video was made from it
// and removes it otherwise, and marks the upload settled so no later sweep looks at it again.
// Its partial index (uploads_unsettled_idx) is built concurrently (concurrent-indexes.ts).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('uploads').addColumn('settled_at', 'timestamptz').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('uploads').dropColumn('settled_at').execute();
}
