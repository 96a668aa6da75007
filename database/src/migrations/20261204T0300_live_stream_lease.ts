// A broadcast's lease (issue 56): the ingest holding a broadcast renews `active_until` every few
// seconds; one that dies (kill -9, a lost host) stops renewing, and once the lease lapses its stream
// reads as idle and a publisher may start a new broadcast, instead of being refused as busy until
// someone intervenes. Null: a broadcast started before leases (held as before, until ended).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('live_streams').addColumn('active_until', 'timestamptz').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('live_streams').dropColumn('active_until').execute();
}
