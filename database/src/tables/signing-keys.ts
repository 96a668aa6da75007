import type { ColumnType, Generated, Selectable } from 'kysely';

/** A JSON Web Key as stored (jsonb). */
export type StoredJwk = Record<string, string>;

/** An ES256 key pair that signs playback tokens. A retired key signs nothing new but stays in the
 *  JWKS until every token it signed has expired. */
export interface SigningKeysTable {
  kid: string;
  algorithm: string;
  public_jwk: ColumnType<StoredJwk, string, string>;
  /** Only in rows written before keys were sealed, until the API's start seals them; then null. */
  private_jwk: ColumnType<StoredJwk | null, string | null, string | null>;
  /** The private JWK sealed with KINO_KEY_ENCRYPTION_KEY (keys/key-encryption.ts), its kid as context. */
  private_key_sealed: string | null;
  created_at: Generated<Date>;
  retired_at: Date | null;
}
export type SigningKey = Selectable<SigningKeysTable>;
