// Enrollment tokens several encode nodes may use (issue 54): a Deployment's replicas, or a pool of
// machines started from one image, share one token, and each node still trades it for a credential
// and certificate of its own. A token enrolls nodes until it expires, as long as fewer than
// `max_nodes` of the nodes it enrolled are live (neither revoked nor gone): a replaced pod's node,
// gone, frees its place. The one-time tokens of `node_credentials` stay as they are.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('node_enrollment_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('labels', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('max_nodes', 'integer', (c) => c.notNull().check(sql`max_nodes >= 1`))
    .addColumn('enrolled_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // A node enrolled with a shared token has no token of its own.
  await db.schema
    .alterTable('node_credentials')
    .addColumn('enrollment_token_id', 'text', (c) => c.references('node_enrollment_tokens.id'))
    .execute();
  await db.schema
    .alterTable('node_credentials')
    .alterColumn('token_hash', (c) => c.dropNotNull())
    .execute();
  await db.schema
    .createIndex('node_credentials_enrollment_token')
    .on('node_credentials')
    .column('enrollment_token_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from node_credentials where enrollment_token_id is not null`.execute(db);
  await db.schema.alterTable('node_credentials').dropColumn('enrollment_token_id').execute();
  await db.schema
    .alterTable('node_credentials')
    .alterColumn('token_hash', (c) => c.setNotNull())
    .execute();
  await db.schema.dropTable('node_enrollment_tokens').execute();
}
