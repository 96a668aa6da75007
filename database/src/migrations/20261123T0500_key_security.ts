// Keys at rest and in time (docs/security.md): an API key may carry an expiry (`kino admin key create
// --expires-in 30d`), and a playback signing key's private half is stored sealed (AES-256-GCM under
// KINO_KEY_ENCRYPTION_KEY) in `private_key_sealed`. A migration cannot hold that key, so rows written
// before this one keep their clear `private_jwk` until the API's start seals them
// (sealPlaintextSigningKeys) and clears the column: `private_jwk` becomes nullable for that.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'timestamptz').execute();
  await db.schema.alterTable('signing_keys').addColumn('private_key_sealed', 'text').execute();
  await db.schema
    .alterTable('signing_keys')
    .alterColumn('private_jwk', (c) => c.dropNotNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('signing_keys').dropColumn('private_key_sealed').execute();
  await db.schema.alterTable('api_keys').dropColumn('expires_at').execute();
}
