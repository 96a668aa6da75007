import type { Generated, Selectable } from 'kysely';

/** A dashboard sign-in (api/src/sessions/sessions.ts). */
export interface DashboardSessionsTable {
  /** SHA-256 (hex) of the cookie's opaque id: a leaked table row does not sign anyone in. */
  id_hash: string;
  /** The provider's `sub`. */
  subject: string;
  /** The verified e-mail address: what membership is recorded by. */
  email: string;
  name: string | null;
  /** Organization ids from the provider's claim (OIDC_ORGANIZATIONS_CLAIM), refreshed with the tokens. */
  claimed_org_ids: Generated<string[]>;
  access_token: string;
  refresh_token: string | null;
  /** For the provider's sign-out (id_token_hint). */
  id_token: string | null;
  access_expires_at: Date;
  created_at: Generated<Date>;
  last_seen_at: Generated<Date>;
}
export type DashboardSession = Selectable<DashboardSessionsTable>;
