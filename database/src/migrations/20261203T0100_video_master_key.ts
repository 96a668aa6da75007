// The stored master playlist delivery serves for a video (docs/decisions/encoding.md#audio): null
// for the one processing wrote (objectKeys.master), the key of a second master once a track added to
// a video whose sound was muxed in its pictures made its sound an alternate rendition. The first
// master stays in storage: delivery's caches keep stored playlists as immutable.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').addColumn('master_key', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').dropColumn('master_key').execute();
}
