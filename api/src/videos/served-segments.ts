// The `served` estimate's input, segments served per video (estimated views = segments ÷ (duration
// ÷ 6), format.ts), so that `served` and the analytics endpoints agree:
//   - written: after each rollup pass (@kino/analytics' rollups.ts, run by every API process), the
//     all-time segments of the videos served on the recomputed days are read from the monthly rollup
//     and copied to PostgreSQL (`video_served_segments`);
//   - read: lists and details take them from PostgreSQL, one indexed query per page, beside the page
//     itself: no request waits on the analytics store, and a page's figures cost what its rows cost.
// They are as fresh as the rollups (a pass every 10 s); docs/list-performance.md#served.
import { AnalyticsStore, type AfterRecompute, type ClickHouseHttp } from '@kino/analytics';
import type { Db } from '@kino/database';
import { recordServedSegments, servedSegmentsOf } from '@kino/database/repositories';
import type { ServedSegmentsSource } from '../deps.ts';

/** The rollup refresher's `afterRecompute`: copies the recomputed videos' all-time segments to PostgreSQL. */
export function copyServedSegments(db: Db, clickhouse: ClickHouseHttp): AfterRecompute {
  const store = new AnalyticsStore(clickhouse);
  return async (recomputed) => {
    for (const { orgId, days } of recomputed) await recordServedSegments(db, await store.segmentsOfVideosServedOn(orgId, days));
  };
}

export function postgresServedSegments(db: Db): ServedSegmentsSource {
  return { segmentsServed: (_orgId, videoIds) => servedSegmentsOf(db, videoIds) };
}
