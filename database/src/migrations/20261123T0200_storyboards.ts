// The storyboard of a video (its WebVTT's storage key), set when processing made one: a video
// without a storyboard (failed to make, or processed before storyboards) plays all the same.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').addColumn('storyboard_key', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').dropColumn('storyboard_key').execute();
}
