// Segments served per video, read from the analytics rollup (`segment_video_monthly`, derived like the
// tables the analytics endpoints read): the input of the `served` estimate in video lists and details, so
// `served` and the analytics agree (estimated views = segments ÷ (duration ÷ 6), format.ts).
import type { ClickHouseHttp } from '@kino/infra';
import { AnalyticsStore } from './analytics-store.ts';
import type { ServedSegmentsSource } from './deps.ts';

export function clickHouseServedSegments(clickhouse: ClickHouseHttp): ServedSegmentsSource {
  const store = new AnalyticsStore(clickhouse);
  return { segmentsServed: (orgId, videoIds) => store.segmentsByVideo(orgId, videoIds) };
}
