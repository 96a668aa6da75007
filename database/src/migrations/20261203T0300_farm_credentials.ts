// The farm's certificate authority and each encode node's credential (issue 54, items 2 and 3).
// `farm_authority` holds one row: the CA certificate, and its private key sealed with the key
// encryption key as playback signing keys are. `node_credentials` holds one row per enrolled node:
// the enrollment token's hash (one use, one hour), then the serial of the certificate it was traded
// for, and when an operator revoked it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('farm_authority')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('certificate', 'text', (c) => c.notNull())
    .addColumn('private_key_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('node_credentials')
    .addColumn('node_id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('labels', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('enrolled_at', 'timestamptz')
    .addColumn('certificate_serial', 'text', (c) => c.unique())
    .addColumn('certificate_expires_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('node_credentials').execute();
  await db.schema.dropTable('farm_authority').execute();
}
