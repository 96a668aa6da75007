// A node that the registry marked gone (silent past the heartbeat timeout: hung, not dead) and that
// comes back still running the work it had, which has since moved to another node, is quarantined
// (docs/security.md#nodes-that-hang): it takes no new work until a heartbeat says it runs nothing.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('encode_nodes').addColumn('quarantined_at', 'timestamptz').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('encode_nodes').dropColumn('quarantined_at').execute();
}
