// The analytics rollup refresher on a real store (chDB): what it must never do is miss rows. Two
// shipper batches can mark the same (organization, day) in the same second, one just before a
// refresher pass and one just after; the second batch's rows must still reach the rollup.
import { afterAll, beforeAll, it } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ClickHouseHttp,
  markRollupDays,
  migrateClickHouse,
  refreshRollups,
  rollupDaysOf,
  SEGMENT_DAILY_TABLE,
  SEGMENT_DELIVERIES_TABLE,
  SEGMENT_ROLLUP_MARKS_TABLE,
  toClickHouseDateTime,
} from '@kino/analytics';
import { freePort, startChdbHttpServer, type ChdbHttpServer } from '@kino/dev';

let dir: string;
let store: ChdbHttpServer;
let clickhouse: ClickHouseHttp;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kino-rollups-'));
  store = await startChdbHttpServer({ dataDir: join(dir, 'chdb'), host: '127.0.0.1', port: await freePort() });
  clickhouse = new ClickHouseHttp(store.url);
  await migrateClickHouse(clickhouse);
});

afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

const servedAt = toClickHouseDateTime(new Date());
const rows = (batch: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    row_id: `${batch}-${i}`,
    served_at: servedAt,
    org_id: 'org_rollups',
    env_id: 'env_rollups',
    video_id: 'vid_rollups',
    rendition_height: 720,
    segment_index: i,
    bytes: 1000,
    access: 'public',
    node_id: 'delivery-test',
  }));

async function rolledUp(): Promise<number> {
  const [row] = await clickhouse.query<{ n: number }>(
    `SELECT toUInt64(sum(segments)) AS n FROM ${SEGMENT_DAILY_TABLE} FINAL WHERE org_id = 'org_rollups'`,
  );
  return Number(row?.n ?? 0);
}

it('a second batch marking the same day in the same second as one already refreshed is counted', async () => {
  const seen = new Map<string, { at: number; marks: number }>();
  const first = rows('first', 3);
  await clickhouse.insert(SEGMENT_DELIVERIES_TABLE, first);
  await markRollupDays(clickhouse, rollupDaysOf(first));
  assert.equal(await refreshRollups(clickhouse, seen), 1);
  assert.equal(await rolledUp(), 3);

  // The second batch lands after that pass; its mark carries the first one's second, as a mark
  // written within the same second does.
  const second = rows('second', 2);
  await clickhouse.insert(SEGMENT_DELIVERIES_TABLE, second);
  await clickhouse.exec(
    `INSERT INTO ${SEGMENT_ROLLUP_MARKS_TABLE} (org_id, day, marked_at) SELECT org_id, day, marked_at FROM ${SEGMENT_ROLLUP_MARKS_TABLE} WHERE org_id = 'org_rollups'`,
  );
  assert.equal(await refreshRollups(clickhouse, seen), 1);
  assert.equal(await rolledUp(), 5);

  // Read again through the overlap, the marks already handled recompute nothing.
  assert.equal(await refreshRollups(clickhouse, seen), 0);
});
