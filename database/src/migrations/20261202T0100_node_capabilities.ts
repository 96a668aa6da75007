// What encode nodes can do and what queued encodes need (issue 54): a node's working encoders and
// whether it has the quality ffmpeg, as it registers them; an encode's needs (JobNeeds of the
// contract: the quality ffmpeg, an encoder, labels), which the dispatch meets; and why an encode
// no live node can run waits (`waiting_for`), which the video's details and the operators' list show.
// Nodes registered before report nothing: they get only the work that needs nothing.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('encode_nodes')
    .addColumn('encoders', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('quality_ffmpeg', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.alterTable('encode_queue').addColumn('needs', 'jsonb').addColumn('waiting_for', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('encode_queue').dropColumn('waiting_for').dropColumn('needs').execute();
  await db.schema.alterTable('encode_nodes').dropColumn('quality_ffmpeg').dropColumn('encoders').execute();
}
