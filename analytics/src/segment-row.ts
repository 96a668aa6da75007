// The segment-log row: one per media segment a delivery node served, in `segment_deliveries`. Its
// columns are declared here only: migration 1 creates the table from them, a row is encoded in
// their order, and shipped rows are inserted under their names. Delivery keeps the spool and the
// batching (delivery/src/segment-log.ts); what a row is and how it reaches ClickHouse is here.
import { randomBytes } from 'node:crypto';
import type { ClickHouseHttp } from './clickhouse.ts';
import { fromTabSeparatedField, tabSeparatedField, toClickHouseDateTime } from './clickhouse.ts';
import { markRollupDays, rollupDaysOf } from './rollups.ts';

/** The table every delivered segment becomes a row of. */
export const SEGMENT_DELIVERIES_TABLE = 'segment_deliveries';

/**
 * The columns of `segment_deliveries` and their ClickHouse types, in the table's (and a spool
 * line's) order. `served_at` and `org_id` come second and third: the shipper reads them from each
 * line to mark the rollup's days. `row_id` is unique per row (ReplacingMergeTree collapses a
 * batch shipped twice).
 */
export const segmentDeliveryColumns = {
  row_id: 'String',
  served_at: "DateTime('UTC')",
  org_id: 'String',
  env_id: 'String',
  video_id: 'String',
  rendition_height: 'UInt16',
  segment_index: 'UInt32',
  bytes: 'UInt64',
  access: "Enum8('public' = 1, 'private' = 2)",
  node_id: 'String',
} as const;

const segmentDeliveryColumnNames = Object.keys(segmentDeliveryColumns);

/** The column list of a CREATE TABLE of `segment_deliveries`. */
export function segmentDeliveryColumnsDdl(): string {
  return Object.entries(segmentDeliveryColumns)
    .map(([name, type]) => `${name} ${type}`)
    .join(',\n        ');
}

/** What a delivery node records for one segment it served (the row adds its id, time and node). */
export interface SegmentDelivery {
  orgId: string;
  envId: string;
  videoId: string;
  renditionHeight: number;
  segmentIndex: number;
  bytes: number;
  access: 'public' | 'private';
}

/** How shipped rows are encoded: TabSeparated (what `SegmentRowEncoder` writes) or JSONEachRow (spools of older nodes). */
export type SegmentRowFormat = 'TabSeparated' | 'JSONEachRow';

/**
 * Encodes one node's rows as ClickHouse TabSeparated lines, in `segmentDeliveryColumns`' order:
 * written once when the row is recorded and sent as it is (far cheaper for the node than
 * JSON.stringify of each row; ClickHouse 18.16 and chDB both read it).
 */
export class SegmentRowEncoder {
  /** The row id's prefix and the node id, as TabSeparated fields (escaped once). */
  private readonly rowPrefix = randomBytes(6).toString('base64url');
  private readonly nodeField: string;
  private rowSeq = 0;
  /** `served_at` of the current second, formatted once a second. */
  private stampSecond = 0;
  private stamp = '';

  constructor(nodeId: string) {
    this.nodeField = tabSeparatedField(nodeId);
  }

  /** The row of a segment served now, as one line (ending in a newline). */
  line(delivery: SegmentDelivery): string {
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.stampSecond) {
      this.stampSecond = second;
      this.stamp = toClickHouseDateTime(new Date(second * 1000));
    }
    // The numbers are written by the caller's code (integers); the access is one of two words;
    // the ids come from the catalog and are escaped.
    return (
      `${this.rowPrefix}-${(this.rowSeq++).toString(36)}\t${this.stamp}\t${tabSeparatedField(delivery.orgId)}\t` +
      `${tabSeparatedField(delivery.envId)}\t${tabSeparatedField(delivery.videoId)}\t${delivery.renditionHeight}\t` +
      `${delivery.segmentIndex}\t${delivery.bytes}\t${delivery.access}\t${this.nodeField}\n`
    );
  }
}

/**
 * Inserts encoded rows (whole lines, `data` as bytes and `text` as its string) as they are,
 * without parsing and re-encoding them, then marks their days for the rollups. After the rows,
 * before the caller forgets them: a crash in between replays both, and both are idempotent.
 */
export async function insertSegmentRows(
  client: ClickHouseHttp,
  format: SegmentRowFormat,
  { data, text }: { data: Buffer; text: string },
): Promise<void> {
  await client.insertEncoded(SEGMENT_DELIVERIES_TABLE, segmentDeliveryColumnNames, format, data);
  await markRollupDays(
    client,
    format === 'TabSeparated' ? rollupDaysOfTabSeparated(text) : rollupDaysOfJsonLines(text),
  );
}

/**
 * The (organization, day) pairs of TabSeparated lines: `served_at` and `org_id`, the second
 * and third fields of each line, found with indexOf rather than by splitting every line.
 */
function rollupDaysOfTabSeparated(text: string): { orgId: string; day: string }[] {
  const seen = new Map<string, { orgId: string; day: string }>();
  for (let start = 0; start < text.length;) {
    const end = text.indexOf('\n', start);
    const servedAt = text.indexOf('\t', start) + 1;
    const orgId = text.indexOf('\t', servedAt) + 1;
    const afterOrgId = text.indexOf('\t', orgId);
    if (servedAt === 0 || orgId === 0 || afterOrgId === -1 || afterOrgId > end)
      throw new Error(`spool line without its columns: ${text.slice(start, end)}`);
    const key = text.slice(servedAt, servedAt + 10) + text.slice(orgId - 1, afterOrgId);
    if (!seen.has(key))
      seen.set(key, {
        orgId: fromTabSeparatedField(text.slice(orgId, afterOrgId)),
        day: text.slice(servedAt, servedAt + 10),
      });
    start = end + 1;
  }
  return [...seen.values()];
}

/** The (organization, day) pairs of JSONEachRow lines (batches an older node left). */
function rollupDaysOfJsonLines(text: string): { orgId: string; day: string }[] {
  return rollupDaysOf(
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { org_id: string; served_at: string }),
  );
}
