// Images of an environment (issue 57): the pictures of watermarks, uploaded to the API and stored at
// objectKeys.image(id); a video's parameters name one by id. An environment's default watermark
// (`watermark`, null: none) is the watermark of its process calls that give none.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('images')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('images_format_known', sql`format IN ('png', 'jpeg')`)
    .execute();
  await db.schema.createIndex('images_env_idx').on('images').columns(['env_id', 'created_at']).execute();
  await db.schema.alterTable('environments').addColumn('watermark', 'jsonb').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('environments').dropColumn('watermark').execute();
  await db.schema.dropTable('images').ifExists().execute();
}
