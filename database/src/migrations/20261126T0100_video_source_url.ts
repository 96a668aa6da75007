// URL ingest (POST .../videos/ingest): the address a video's source is fetched from, inside its
// workflow, into its storage_path. Null for uploaded videos.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').addColumn('source_url', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').dropColumn('source_url').execute();
}
