import type { Generated, Selectable } from 'kysely';

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: Generated<Date>;
}
export type Organization = Selectable<OrganizationsTable>;
