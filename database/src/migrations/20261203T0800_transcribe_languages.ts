// Captions from speech (issue 57): the languages a node's speech engine transcribes, as it reports
// them when it registers (RegisterRequest.transcribe_languages). Empty: no engine, so no
// transcription job is granted to it (the contract's JobNeeds.transcribeLanguage).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('encode_nodes')
    .addColumn('transcribe_languages', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('encode_nodes').dropColumn('transcribe_languages').execute();
}
