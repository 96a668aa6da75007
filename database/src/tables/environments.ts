import type { Generated, Selectable } from 'kysely';

export interface EnvironmentsTable {
  id: string;
  org_id: string;
  name: string;
  created_at: Generated<Date>;
}
export type Environment = Selectable<EnvironmentsTable>;
