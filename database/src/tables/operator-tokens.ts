import type { Generated, Selectable } from 'kysely';

export interface OperatorTokensTable {
  id: string;
  /** What the operator called it (`--name`), to tell tokens apart in a list. */
  name: string;
  /** SHA-256 of the whole token; the token itself is shown once and never stored. */
  token_hash: string;
  /** The first characters in clear: lists show it, and a presented token is looked up by it. */
  token_prefix: string;
  created_at: Generated<Date>;
  revoked_at: Date | null;
  last_used_at: Date | null;
}
export type OperatorToken = Selectable<OperatorTokensTable>;
