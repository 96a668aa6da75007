import type { ColumnType, Generated, Selectable } from 'kysely';

/** A JSON Web Key as stored (jsonb). */
export type StoredJwk = Record<string, string>;

/** An ES256 key pair that signs playback tokens. A retired key signs nothing new but stays in the
 *  JWKS until every token it signed has expired. */
export interface SigningKeysTable {
  kid: string;
  algorithm: string;
  public_jwk: ColumnType<StoredJwk, string, string>;
  private_jwk: ColumnType<StoredJwk, string, string>;
  created_at: Generated<Date>;
  retired_at: Date | null;
}
export type SigningKey = Selectable<SigningKeysTable>;
