// Renditions in codecs beside H.264 (AV1, HEVC) and their measured quality
// (docs/decisions/quality.md): `video_codec` names the rendition's codec (every rendition before
// this was H.264); `vmaf` is its mean VMAF against the source over the chunks measured, null when
// none was; `average_bandwidth` is its measured bits per second over the whole rendition (what a
// content-aware rendition really spends below its ladder value), null for renditions made before.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('renditions')
    .addColumn('video_codec', 'text', (c) => c.notNull().defaultTo('h264'))
    .addColumn('vmaf', sql`double precision`)
    .addColumn('average_bandwidth', 'integer')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('renditions')
    .dropColumn('video_codec')
    .dropColumn('vmaf')
    .dropColumn('average_bandwidth')
    .execute();
}
