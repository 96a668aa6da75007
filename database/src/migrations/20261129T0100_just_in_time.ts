// Just-in-time segments (docs/decisions/just-in-time.md): a video turns `ready` once its first
// segments exist and its other segments are made in the background in playback order, or at once
// when a viewer asks for one.
// - `videos.segments_pending`: true while a ready video's ladder is still being made (delivery asks
//   the farm for a segment it does not find); false for every video made before and once complete.
// - `environments.just_in_time`: the environment's choice; null follows the farm's default
//   (JUST_IN_TIME on the orchestrator).
// - `encode_queue`: the window of segments an entry makes (`renditions`, `first_segment`,
//   `segment_count`; null for whole-video work), its place in the video's playback order (`rank`),
//   and `priority` (1: a viewer or the video's first segments wait for it) with when it was raised.
// - `node_leases.on_demand`: a lease of the demand slot each node has beside its slots.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('videos')
    .addColumn('segments_pending', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.alterTable('environments').addColumn('just_in_time', 'boolean').execute();
  await db.schema
    .alterTable('encode_queue')
    .addColumn('priority', 'smallint', (c) => c.notNull().defaultTo(0))
    .addColumn('raised_at', 'timestamptz')
    .addColumn('rank', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('renditions', sql`text[]`)
    .addColumn('first_segment', 'integer')
    .addColumn('segment_count', 'integer')
    .execute();
  await db.schema
    .alterTable('node_leases')
    .addColumn('on_demand', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('node_leases').dropColumn('on_demand').execute();
  await db.schema
    .alterTable('encode_queue')
    .dropColumn('priority')
    .dropColumn('raised_at')
    .dropColumn('rank')
    .dropColumn('renditions')
    .dropColumn('first_segment')
    .dropColumn('segment_count')
    .execute();
  await db.schema.alterTable('environments').dropColumn('just_in_time').execute();
  await db.schema.alterTable('videos').dropColumn('segments_pending').execute();
}
