// An operator's drain of an encode node (`kino nodes drain`): kept apart from `state`, which the
// node's own heartbeats write (a heartbeat would otherwise undo the operator's drain within seconds).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('encode_nodes').addColumn('drain_requested_at', 'timestamptz').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('encode_nodes').dropColumn('drain_requested_at').execute();
}
