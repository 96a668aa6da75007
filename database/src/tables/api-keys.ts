import type { Generated, Selectable } from 'kysely';

export type ApiKeyType = 'environment' | 'full' | 'system';

export interface ApiKeysTable {
  id: string;
  org_id: string;
  /** Set only for `environment` keys. */
  env_id: string | null;
  type: ApiKeyType;
  live: boolean;
  /** SHA-256 of the whole key; the key itself is shown once and never stored. */
  key_hash: string;
  /** The first characters, so an operator can tell keys apart in a list. */
  key_prefix: string;
  created_at: Generated<Date>;
  revoked_at: Date | null;
  /** Past this instant the key answers 401 like a revoked one; null: it never expires. */
  expires_at: Date | null;
  last_used_at: Date | null;
}
export type ApiKey = Selectable<ApiKeysTable>;
