import type { Generated, Selectable } from 'kysely';

/** Who may use an organization through the dashboard (`kino admin member add|list|remove`). */
export interface OrganizationMembersTable {
  org_id: string;
  /** Lower-cased; matched against the provider's verified `email` claim. */
  email: string;
  created_at: Generated<Date>;
}
export type OrganizationMember = Selectable<OrganizationMembersTable>;
