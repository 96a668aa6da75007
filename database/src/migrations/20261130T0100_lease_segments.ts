// A viewer's request for a segment of a run already running (docs/decisions/just-in-time.md): its
// queue entry is gone once the run took its lease, so the lease carries what the entry did.
// - `node_leases.renditions`, `first_segment`, `segment_count`: the segments the lease's run makes,
//   copied from its queue entry at grant (null for whole-video work, as on encode_queue).
// - `node_leases.raised_at`: when someone began waiting for the run (set at grant for an entry
//   already raised, or by a viewer's request while it runs); the orchestrator holding the lease then
//   asks the node to run its ffmpeg at the priority of urgent work.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('node_leases')
    .addColumn('renditions', sql`text[]`)
    .addColumn('first_segment', 'integer')
    .addColumn('segment_count', 'integer')
    .addColumn('raised_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('node_leases')
    .dropColumn('renditions')
    .dropColumn('first_segment')
    .dropColumn('segment_count')
    .dropColumn('raised_at')
    .execute();
}
