// Audio downloads (issue 32): the `audio.m4a` of a video with sound (objectKeys.audioDownload), when
// processing made one. Null for a silent video, and for videos made before audio downloads.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').addColumn('audio_key', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('videos').dropColumn('audio_key').execute();
}
