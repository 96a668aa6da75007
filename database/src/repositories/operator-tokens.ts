// Operator tokens: bearer tokens of the operators' interface, stored as hashes (keys/operator-token-format.ts).
import { sql } from 'kysely';
import { newId } from '@kino/infra';
import type { Db } from '../database.ts';
import type { OperatorToken } from '../schema.ts';
import { hashSecret } from '../keys/api-key-format.ts';
import { generateOperatorToken, OPERATOR_TOKEN_PATTERN } from '../keys/operator-token-format.ts';

/** Creates a token; the returned `token` is the only time it exists in clear. */
export async function createOperatorToken(
  db: Db,
  { name }: { name: string },
): Promise<{ token: string; record: OperatorToken }> {
  const generated = generateOperatorToken();
  const record = await db
    .insertInto('operator_tokens')
    .values({
      id: newId('opt'),
      name,
      token_hash: generated.hash,
      token_prefix: generated.prefix,
      revoked_at: null,
      last_used_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { token: generated.token, record };
}

/** The token's record, unless it is malformed, unknown or revoked: found by its hash, as API keys are. */
export async function findActiveOperatorToken(db: Db, token: string): Promise<OperatorToken | undefined> {
  if (!OPERATOR_TOKEN_PATTERN.test(token)) return undefined;
  return db
    .selectFrom('operator_tokens')
    .selectAll()
    .where('token_hash', '=', hashSecret(token))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function getOperatorToken(db: Db, id: string): Promise<OperatorToken | undefined> {
  return db.selectFrom('operator_tokens').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Tokens whose id or prefix is `idOrPrefix` (the two ways `kino admin operator-token revoke` names one). */
export async function findOperatorTokens(db: Db, idOrPrefix: string): Promise<OperatorToken[]> {
  return db
    .selectFrom('operator_tokens')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrPrefix), eb('token_prefix', '=', idOrPrefix)]))
    .execute();
}

export async function listOperatorTokens(db: Db): Promise<OperatorToken[]> {
  return db.selectFrom('operator_tokens').selectAll().orderBy('created_at').orderBy('id').execute();
}

/** Revokes a token; one already revoked keeps its first revocation time. */
export async function revokeOperatorToken(db: Db, id: string): Promise<OperatorToken | undefined> {
  await db
    .updateTable('operator_tokens')
    .set({ revoked_at: sql`now()` })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
  return getOperatorToken(db, id);
}

/** Records use, at most once a minute per token. */
export async function touchOperatorToken(db: Db, id: string): Promise<void> {
  await db
    .updateTable('operator_tokens')
    .set({ last_used_at: sql`now()` })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`)]),
    )
    .execute();
}
