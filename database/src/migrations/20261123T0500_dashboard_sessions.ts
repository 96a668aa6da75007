// The dashboard's sign-in (issue #12): server-side sessions (the browser's cookie holds only an
// opaque id, stored here as its SHA-256) and organization members (by e-mail address, managed with
// `kino admin member add|list|remove`).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('claimed_org_ids', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('access_token', 'text', (c) => c.notNull())
    .addColumn('refresh_token', 'text')
    .addColumn('id_token', 'text')
    .addColumn('access_expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('dashboard_sessions_last_seen_idx')
    .on('dashboard_sessions')
    .column('last_seen_at')
    .execute();

  await db.schema
    .createTable('organization_members')
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('organization_members_pkey', ['org_id', 'email'])
    .execute();
  await db.schema.createIndex('organization_members_email_idx').on('organization_members').column('email').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('organization_members').ifExists().execute();
  await db.schema.dropTable('dashboard_sessions').ifExists().execute();
}
