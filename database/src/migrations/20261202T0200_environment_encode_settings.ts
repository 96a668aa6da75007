// An environment's encode settings (issue 54), the defaults of the process calls of its videos:
// `hardware_encoding` (`never` or `allowed`; null: never) lets nodes use a working hardware encoder,
// `node_labels` (null or empty: none) sends its videos' encodes to nodes carrying every label.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('environments')
    .addColumn('hardware_encoding', 'text')
    .addColumn('node_labels', sql`text[]`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('environments').dropColumn('node_labels').dropColumn('hardware_encoding').execute();
}
