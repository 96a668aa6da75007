// Sealing of signing keys stored in clear, the data half of a migration; the keyring that makes and
// rotates keys is the API's (database/src/playback-keys/keyring.ts).
import type { Db } from '../database.ts';
import { listPlaintextSigningKeys, storeSealedPrivateKey } from '../repositories/signing-keys.ts';
import type { KeyEncryption } from './key-encryption.ts';

/**
 * Seals every private key still stored in clear (rows from before keys were sealed) and clears the
 * clear copy. The API runs it at every start, after the migrations: it is the data half of the
 * 20261123T0500_key_security migration, which cannot hold the key. Returns how many it sealed.
 */
export async function sealPlaintextSigningKeys(db: Db, encryption: KeyEncryption): Promise<number> {
  const rows = await listPlaintextSigningKeys(db);
  for (const row of rows)
    await storeSealedPrivateKey(db, row.kid, encryption.seal(JSON.stringify(row.private_jwk), row.kid));
  return rows.length;
}
