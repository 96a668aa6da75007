// Marks: which (organization, day) a rollup must recompute. A writer inserts a mark per day after
// the rows it inserted (the delivery shipper for the segment rollups, the fold for the experience
// rollups), stamped with the store's clock; a refresher reads the marks stamped since its saved
// watermark, minus a minute of overlap for inserts that were still running, recomputes their days,
// then saves the new watermark. Recomputing is idempotent, so a day done twice is harmless; missing
// one is not, hence marks written after the rows, and the overlap.
import type { ClickHouseHttp } from './clickhouse.ts';

/** Marks stamped this long before the watermark are read again (inserts that were still running). */
const MARK_OVERLAP_SECONDS = 60;

/** What a refresher remembers of the marks it handled: how many per (organization, day, second). */
export type SeenMarks = Map<string, { at: number; marks: number }>;

/**
 * The marks of a marks table (`org_id`, `day`, `marked_at`) stamped since its progress table's
 * watermark minus the overlap and not yet handled by this refresher (`seen` carries how many marks
 * it handled per (organization, day, second), so the overlap re-reads them without recomputing
 * their days again, while a mark that arrived later in the same second still counts), as the
 * days of each organization. `handled()`, called once those days are recomputed, records them
 * and saves the new watermark.
 */
export async function readFreshMarks(
  client: ClickHouseHttp,
  marksTable: string,
  progressTable: string,
  seen: SeenMarks,
): Promise<{ daysByOrg: Map<string, string[]>; handled(): Promise<void> }> {
  // Unix seconds, not DateTime text: ClickHouse 18.16 prints the zero DateTime as 0000-00-00.
  const [progress] = await client.query<{ watermark: number }>(
    `SELECT toUInt32(max(watermark)) AS watermark FROM ${progressTable}`,
  );
  const watermark = Number(progress?.watermark ?? 0);
  const since = Math.max(0, watermark - MARK_OVERLAP_SECONDS);
  const marks = (
    await client.query<{ org_id: string; mark_day: string; at: number; marks: number }>(
      `SELECT org_id, toString(day) AS mark_day, toUInt32(marked_at) AS at, count() AS marks FROM ${marksTable}
       WHERE marked_at >= toDateTime(${since})
       GROUP BY org_id, day, marked_at`,
    )
  ).map((m) => ({
    key: `${m.org_id}\n${m.mark_day}\n${m.at}`,
    orgId: m.org_id,
    day: m.mark_day,
    at: Number(m.at),
    marks: Number(m.marks),
  }));
  const fresh = marks.filter((m) => (seen.get(m.key)?.marks ?? 0) < m.marks);
  const byOrg = new Map<string, Set<string>>();
  for (const mark of fresh) byOrg.set(mark.orgId, (byOrg.get(mark.orgId) ?? new Set()).add(mark.day));
  return {
    daysByOrg: new Map([...byOrg].map(([orgId, days]) => [orgId, [...days].sort()])),
    async handled() {
      for (const mark of fresh) seen.set(mark.key, { at: mark.at, marks: mark.marks });
      const upto = Math.max(watermark, ...marks.map((m) => m.at));
      for (const [key, mark] of seen) if (mark.at < upto - MARK_OVERLAP_SECONDS) seen.delete(key);
      if (upto > watermark)
        await client.exec(`INSERT INTO ${progressTable} (id, watermark) SELECT 1, toDateTime(${upto})`);
    },
  };
}
