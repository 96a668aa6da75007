import type { ColumnType, Generated } from 'kysely';

/**
 * All-time segments served per video, copied from the analytics rollups (ClickHouse) by the API's
 * rollup refresher: the input of the `served` estimate in lists and details. Only grows.
 */
export interface VideoServedSegmentsTable {
  video_id: string;
  /** bigint: pg returns it as a string. */
  segments: ColumnType<string, number, number>;
  updated_at: Generated<Date>;
}
