import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Watermark } from '@kino/proto/contract';

export interface EnvironmentsTable {
  id: string;
  org_id: string;
  name: string;
  /** Just-in-time segments for the environment's videos; null: the farm's default (JUST_IN_TIME). */
  just_in_time: Generated<boolean | null>;
  /** `allowed`: its videos' renditions may use nodes' hardware encoders; null (or `never`): software only. */
  hardware_encoding: Generated<'never' | 'allowed' | null>;
  /** Labels every encode node of its videos must carry; null or empty: any node. */
  node_labels: Generated<string[] | null>;
  /** The watermark of its videos whose process call gives none (issue 57); null: none. */
  watermark: ColumnType<Watermark | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
}
export type Environment = Selectable<EnvironmentsTable>;
