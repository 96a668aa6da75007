// The encode queue (repositories/encode-queue.ts): encodes waiting for a slot,
// served in a fair order across videos by whichever orchestrator dispatches next.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('encode_queue')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('video_id', 'text', (c) => c.notNull())
    .addColumn('job', 'text', (c) => c.notNull())
    .addColumn('video_since', 'timestamptz', (c) => c.notNull())
    .addColumn('enqueued_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('touched_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('lease_id', 'text')
    .execute();
  await db.schema
    .createIndex('encode_queue_order_idx')
    .on('encode_queue')
    .columns(['video_since', 'enqueued_at'])
    .execute();
  await db.schema.createIndex('node_leases_video_idx').on('node_leases').column('video_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('node_leases_video_idx').ifExists().execute();
  await db.schema.dropTable('encode_queue').ifExists().execute();
}
