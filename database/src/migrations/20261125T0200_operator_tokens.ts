// Operator tokens (docs/decisions/operations.md#operator-tokens): bearer tokens for the operators'
// interface, kept like API keys (only the SHA-256, plus a short prefix to list and find them), made
// by `kino admin operator-token create` or `kino admin bootstrap`, beside the optional OPERATOR_TOKEN.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('operator_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    .execute();
  // `kino admin operator-token revoke` names a token by its prefix.
  await db.schema.createIndex('operator_tokens_prefix_idx').on('operator_tokens').column('token_prefix').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('operator_tokens').execute();
}
