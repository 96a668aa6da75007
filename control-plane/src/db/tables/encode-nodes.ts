import type { ColumnType, Generated, Selectable } from 'kysely';

/** The registry of encode nodes: what registered, where to reach it, and when it last spoke. */
export interface EncodeNodesTable {
  id: string;
  address: string;
  slots: number;
  version: string;
  labels: ColumnType<Record<string, string>, string, string>;
  /** `active` takes work; `draining` finishes what it has; `gone` stopped heartbeating. */
  state: 'active' | 'draining' | 'gone';
  registered_at: Generated<Date>;
  last_heartbeat_at: Date;
}
export type EncodeNode = Selectable<EncodeNodesTable>;

/** A slot taken on a node by one encode attempt. */
export interface NodeLeasesTable {
  id: string;
  node_id: string;
  video_id: string;
  job: string;
  acquired_at: Generated<Date>;
}
