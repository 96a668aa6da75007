// Frame-accurate clips (docs/decisions/delivery.md#clips): a clip's first and last segments are
// encoded again and stored under the clip's own keys; the ones between stay its media video's.
// `clip_own_segments` lists the clip's segment numbers that are its own objects (empty for a
// segment-accurate clip and for every video that is not a clip).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('videos')
    .addColumn('clip_own_segments', sql`integer[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').dropColumn('clip_own_segments').execute();
}
