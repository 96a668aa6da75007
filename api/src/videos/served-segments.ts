// The `served` estimate's input, segments served per video (estimated views = segments ÷ (duration
// ÷ 6), format.ts), so that `served` and the analytics endpoints agree:
//   - written: after each rollup pass (@kino/analytics' rollups.ts, run by every API process), the
//     all-time segments of the videos served on the recomputed days are read from the monthly rollup
//     and copied to PostgreSQL (`video_served_segments`);
//   - read: lists and details take them from PostgreSQL, one indexed query per page, beside the page
//     itself: no request waits on the analytics store, and a page's figures cost what its rows cost.
// They are as fresh as the rollups (a pass every 10 s); docs/list-performance.md#served.
import { AnalyticsStore, type AfterRecompute, type ClickHouseHttp } from '@kino/analytics';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Video } from '@kino/database';
import { recordServedSegments, servedSegmentsOf } from '@kino/database/repositories';
import type { ApiDeps, ServedSegmentsSource } from '../deps.ts';

/** The rollup refresher's `afterRecompute`: copies the recomputed videos' all-time segments to PostgreSQL. */
export function copyServedSegments(db: Db, clickhouse: ClickHouseHttp): AfterRecompute {
  const store = new AnalyticsStore(clickhouse);
  return async (recomputed) => {
    for (const { orgId, days } of recomputed)
      await recordServedSegments(db, await store.segmentsOfVideosServedOn(orgId, days));
  };
}

export function postgresServedSegments(db: Db): ServedSegmentsSource {
  return { segmentsServed: (_orgId, videoIds) => servedSegmentsOf(db, videoIds) };
}

/** The segments served of `videos` (all of one organization), for their `served` estimate; none when the source fails. */
export async function segmentsServedFor(
  deps: Pick<ApiDeps, 'servedSegments'>,
  log: Pick<FastifyBaseLogger, 'warn'>,
  videos: Pick<Video, 'id' | 'org_id'>[],
): Promise<Map<string, number>> {
  if (!deps.servedSegments || videos.length === 0) return new Map();
  try {
    return await deps.servedSegments.segmentsServed(
      videos[0]!.org_id,
      videos.map((v) => v.id),
    );
  } catch (error) {
    // A view estimate is not worth failing a listing for.
    log.warn({ err: error }, 'served segments unavailable; reporting 0 views');
    return new Map();
  }
}
