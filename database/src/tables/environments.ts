import type { Generated, Selectable } from 'kysely';

export interface EnvironmentsTable {
  id: string;
  org_id: string;
  name: string;
  /** Just-in-time segments for the environment's videos; null: the farm's default (JUST_IN_TIME). */
  just_in_time: Generated<boolean | null>;
  created_at: Generated<Date>;
}
export type Environment = Selectable<EnvironmentsTable>;
