// A broadcast's video names its live stream (issue 56): `liveStreamId` in its details, and the
// stream it is recorded from. Whether it is live is derived (the stream's active_video_id is it), so
// it is not stored twice. A stream deleted later leaves its recordings, the reference cleared.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('videos')
    .addColumn('live_stream_id', 'text', (c) => c.references('live_streams.id').onDelete('set null'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').dropColumn('live_stream_id').execute();
}
