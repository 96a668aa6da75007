// Segments served per video, read from the analytics store (the `segment_deliveries` table the
// delivery nodes fill): the input of the `served` estimate in video lists and details.
import { clickHouseString, SEGMENT_DELIVERIES_TABLE, type ClickHouseHttp } from '@kino/infra';
import type { ServedSegmentsSource } from './deps.ts';

export function clickHouseServedSegments(clickhouse: ClickHouseHttp): ServedSegmentsSource {
  return {
    async segmentsServed(videoIds) {
      if (videoIds.length === 0) return new Map();
      // DISTINCT row_id: a delivery batch shipped twice repeats its rows until ClickHouse merges them.
      const rows = await clickhouse.query<{ video_id: string; segments: number }>(
        `SELECT video_id, count(DISTINCT row_id) AS segments FROM ${SEGMENT_DELIVERIES_TABLE}
         WHERE video_id IN (${videoIds.map(clickHouseString).join(', ')}) GROUP BY video_id`,
      );
      return new Map(rows.map((row) => [row.video_id, Number(row.segments)]));
    },
  };
}
