// The source's dynamic range (`sdr`, `hdr10`, `hlg`: the contract's dynamicRanges), from its probe,
// shown in the video's details (`sourceDynamicRange`). Null for videos made before it was read.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').addColumn('source_dynamic_range', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').dropColumn('source_dynamic_range').execute();
}
