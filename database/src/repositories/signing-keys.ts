// The signing_keys table: playback-token key pairs (ES256). The keyring (playback-keys/keyring.ts)
// decides when to make, rotate and publish keys; these functions only read and write rows.
import type { Insertable } from 'kysely';
import type { Db } from '../database.ts';
import type { SigningKey, SigningKeysTable } from '../schema.ts';

export type NewSigningKey = Insertable<SigningKeysTable>;

/** The newest key that is not retired: the one new tokens are signed with. */
export async function findNewestActiveSigningKey(db: Db): Promise<SigningKey | undefined> {
  return db
    .selectFrom('signing_keys')
    .selectAll()
    .where('retired_at', 'is', null)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Public keys of active keys and of keys retired after `retiredAfter`, newest first. */
export async function listPublishedSigningKeys(
  db: Db,
  retiredAfter: Date,
): Promise<Array<Pick<SigningKey, 'kid' | 'public_jwk'>>> {
  return db
    .selectFrom('signing_keys')
    .select(['kid', 'public_jwk'])
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', retiredAfter)]))
    .orderBy('created_at', 'desc')
    .execute();
}

/** Every key, newest first, for the operators' list (`kino admin playback-keys list`): no private half. */
export async function listSigningKeys(
  db: Db,
): Promise<Array<Pick<SigningKey, 'kid' | 'algorithm' | 'created_at' | 'retired_at'>>> {
  return db
    .selectFrom('signing_keys')
    .select(['kid', 'algorithm', 'created_at', 'retired_at'])
    .orderBy('created_at', 'desc')
    .execute();
}

/** Keys whose private half is still stored in clear (written before keys were sealed). */
export async function listPlaintextSigningKeys(db: Db): Promise<Array<Pick<SigningKey, 'kid' | 'private_jwk'>>> {
  return db.selectFrom('signing_keys').select(['kid', 'private_jwk']).where('private_jwk', 'is not', null).execute();
}

/** Stores a key's sealed private half and clears the clear one. */
export async function storeSealedPrivateKey(db: Db, kid: string, sealed: string): Promise<void> {
  await db
    .updateTable('signing_keys')
    .set({ private_key_sealed: sealed, private_jwk: null })
    .where('kid', '=', kid)
    .execute();
}

/** Adds a key unless one with its kid exists (another process made the same one: harmless). */
export async function insertSigningKey(db: Db, key: NewSigningKey): Promise<void> {
  await db
    .insertInto('signing_keys')
    .values(key)
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Retires every active key at `retiredAt` and adds `fresh`, in one transaction. */
export async function rotateSigningKeys(db: Db, fresh: NewSigningKey, retiredAt: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('signing_keys').set({ retired_at: retiredAt }).where('retired_at', 'is', null).execute();
    await trx.insertInto('signing_keys').values(fresh).execute();
  });
}
