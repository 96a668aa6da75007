import { sql } from 'kysely';
import { newId } from '@kino/infra';
import type { Db } from '../database.ts';
import type { ApiKey, ApiKeyType } from '../schema.ts';
import { generateApiKey, hashSecret, isWellFormedApiKey } from '../keys/api-key-format.ts';

export interface CreateApiKeyInput {
  orgId: string;
  /** Required for `environment` keys, refused for the others. */
  envId?: string;
  type: ApiKeyType;
  live: boolean;
  /** The key stops working this long after its creation; unset: it works until revoked. */
  expiresInSeconds?: number;
}

/** Creates a key; the returned `apiKey` is the only time the key exists in clear. */
export async function createApiKey(db: Db, input: CreateApiKeyInput): Promise<{ apiKey: string; record: ApiKey }> {
  if (input.type === 'environment' && !input.envId) throw new Error('an environment key needs an environment');
  if (input.type !== 'environment' && input.envId)
    throw new Error(`a ${input.type} key is not bound to an environment`);
  const org = await db.selectFrom('organizations').select('id').where('id', '=', input.orgId).executeTakeFirst();
  if (!org) throw new Error(`organization ${input.orgId} does not exist`);
  if (input.envId) {
    const env = await db.selectFrom('environments').select('org_id').where('id', '=', input.envId).executeTakeFirst();
    if (!env || env.org_id !== input.orgId) {
      throw new Error(`environment ${input.envId} does not exist in organization ${input.orgId}`);
    }
  }
  const generated = generateApiKey(input.live);
  const record = await db
    .insertInto('api_keys')
    .values({
      id: newId('key'),
      org_id: input.orgId,
      env_id: input.envId ?? null,
      type: input.type,
      live: input.live,
      key_hash: generated.hash,
      key_prefix: generated.prefix,
      revoked_at: null,
      // The database's clock, the one findActiveApiKey compares with.
      expires_at:
        input.expiresInSeconds === undefined
          ? null
          : sql<Date>`now() + make_interval(secs => ${input.expiresInSeconds})`,
      last_used_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { apiKey: generated.key, record };
}

/** The key record for a key in clear, unless it is malformed, unknown, revoked or expired. */
export async function findActiveApiKey(db: Db, key: string): Promise<ApiKey | undefined> {
  if (!isWellFormedApiKey(key)) return undefined;
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_hash', '=', hashSecret(key))
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
    .executeTakeFirst();
}

export async function getApiKey(db: Db, id: string): Promise<ApiKey | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApiKeys(db: Db, orgId: string): Promise<ApiKey[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Revokes a key; a key already revoked keeps its first revocation time. */
export async function revokeApiKey(db: Db, id: string): Promise<ApiKey | undefined> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: sql`now()` })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
  return getApiKey(db, id);
}

/** Records use, at most once a minute per key so busy keys do not write on every request. */
export async function touchApiKey(db: Db, id: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: sql`now()` })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`)]),
    )
    .execute();
}
