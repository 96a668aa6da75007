// A video's metadata (PATCH /{orgID}/videos/{publicID}, docs/decisions/api.md#updates-and-metadata):
// the application's own ids for it and a passthrough string Kino stores and returns unread. Columns,
// not a JSON document: `externalId` is a list filter (indexed concurrently, concurrent-indexes.ts),
// and each field has its own limit. Null when unset.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('videos')
    .addColumn('external_id', 'text')
    .addColumn('creator_id', 'text')
    .addColumn('passthrough', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('videos')
    .dropColumn('external_id')
    .dropColumn('creator_id')
    .dropColumn('passthrough')
    .execute();
}
