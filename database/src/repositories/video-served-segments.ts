// The all-time segments served per video, a copy of the analytics rollups' figure kept by the API's
// rollup refresher (api/src/videos/served-segments.ts): lists and details read it here, one indexed query a page.
import { sql } from 'kysely';
import type { Db } from '../database.ts';

/**
 * Records the segments served of some videos. Counts only grow (raw rows are never removed), so a
 * copy computed earlier (by another API process's refresher, landing late) never lowers a count.
 */
export async function recordServedSegments(db: Db, counts: ReadonlyMap<string, number>): Promise<void> {
  // In id order, so that two processes recording the same videos take their row locks in the same
  // order (no deadlock); in batches under PostgreSQL's 65,535 parameters a statement.
  const rows = [...counts]
    .map(([video_id, segments]) => ({ video_id, segments }))
    .sort((a, b) => (a.video_id < b.video_id ? -1 : 1));
  for (let i = 0; i < rows.length; i += RECORD_BATCH) {
    await db
      .insertInto('video_served_segments')
      .values(rows.slice(i, i + RECORD_BATCH))
      .onConflict((oc) =>
        oc.column('video_id').doUpdateSet({
          segments: sql`greatest(video_served_segments.segments, excluded.segments)`,
          updated_at: sql`now()`,
        }),
      )
      .execute();
  }
}

const RECORD_BATCH = 10_000;

/** Segments served of the given videos (those never served are absent). */
export async function servedSegmentsOf(db: Db, videoIds: readonly string[]): Promise<Map<string, number>> {
  if (videoIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('video_served_segments')
    .select(['video_id', 'segments'])
    .where('video_id', '=', sql<string>`any(${sql.val([...videoIds])}::text[])`)
    .execute();
  return new Map(rows.map((r) => [r.video_id, Number(r.segments)]));
}
