// The analytics backup (`kino admin backup` and `restore`'s ClickHouse half) on the dev stack's store
// (chDB behind its HTTP interface, which passes only text): a store's tables written to files and
// loaded into a fresh store give the same rows, strings with tabs, newlines and backslashes
// included, and rows served while the rollups lagged are rolled up after the restore. A second
// restore changes no count. (test/deploy/backup-restore.test.ts runs it on a ClickHouse server.)
import { afterAll, beforeAll, it } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  analyticsTables,
  backupAnalytics,
  ClickHouseHttp,
  markRollupDays,
  migrateClickHouse,
  refreshRollups,
  restoreAnalytics,
  rollupDaysOf,
  SEGMENT_DAILY_TABLE,
  SEGMENT_DELIVERIES_TABLE,
  toClickHouseDateTime,
} from '@kino/analytics';
import { freePort, startChdbHttpServer, type ChdbHttpServer } from '@kino/dev';

let dir: string;
/** The store open now: chDB opens one data directory per process, so the source closes before the restored one opens. */
let store: ChdbHttpServer | undefined;

async function startStore(name: string): Promise<ClickHouseHttp> {
  store = await startChdbHttpServer({ dataDir: join(dir, name), host: '127.0.0.1', port: await freePort() });
  return new ClickHouseHttp(store.url);
}

async function closeStore(client: ClickHouseHttp): Promise<void> {
  await client.close();
  await store?.close();
  store = undefined;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kino-analytics-backup-'));
});

afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

/** `count` rows served on consecutive days from November `firstDay`, 2026. */
const rows = (batch: string, videoId: string, count: number, firstDay: number) =>
  Array.from({ length: count }, (_, i) => ({
    row_id: `${batch}-${i}`,
    served_at: toClickHouseDateTime(new Date(Date.UTC(2026, 10, firstDay + i, 12))),
    org_id: 'org_backup',
    env_id: 'env_backup',
    video_id: videoId,
    rendition_height: 360 + i,
    segment_index: i,
    bytes: 1000 + i,
    access: i % 2 ? 'private' : 'public',
    node_id: 'delivery-test',
  }));

/** Every row of every table, each table's rows sorted: what a backup must carry over. */
async function contents(client: ClickHouseHttp): Promise<Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  for (const table of analyticsTables()) {
    tables[table] = (await client.query(`SELECT * FROM ${table}`)).map((row) => JSON.stringify(row)).sort();
  }
  return tables;
}

async function rolledUp(client: ClickHouseHttp): Promise<number> {
  const [row] = await client.query<{ n: number }>(
    `SELECT toUInt64(sum(segments)) AS n FROM ${SEGMENT_DAILY_TABLE} FINAL WHERE org_id = 'org_backup'`,
  );
  return Number(row?.n ?? 0);
}

it('a store restored from its backup holds the same rows, and rolls up the rows the rollups had not reached', async () => {
  const source = await startStore('source');
  await migrateClickHouse(source);
  const rolled = rows('rolled', 'vid_tab\there\\and\nnewline', 3, 20);
  await source.insert(SEGMENT_DELIVERIES_TABLE, rolled);
  await markRollupDays(source, rollupDaysOf(rolled));
  await refreshRollups(source);
  // Rows the rollups have not counted yet (served while the backup ran), on days no mark names.
  await source.insert(SEGMENT_DELIVERIES_TABLE, rows('late', 'vid_late', 2, 25));
  assert.equal(await rolledUp(source), 3);

  const backupDir = join(dir, 'backup');
  const backup = await backupAnalytics(source, backupDir);
  assert.equal(backup.tables.find((table) => table.name === SEGMENT_DELIVERIES_TABLE)?.rows, 5);

  const expected = await contents(source);
  await closeStore(source);

  const restored = await startStore('restored');
  await restoreAnalytics(restored, backupDir, backup);
  const actual = await contents(restored);
  assert.deepEqual(actual[SEGMENT_DELIVERIES_TABLE], expected[SEGMENT_DELIVERIES_TABLE], 'the raw rows, byte for byte');
  for (const table of analyticsTables())
    for (const row of expected[table]!) assert.ok(actual[table]!.includes(row), `${table} keeps ${row}`);

  // The restore marked every served day: the refresher counts the late rows too.
  await refreshRollups(restored);
  assert.equal(await rolledUp(restored), 5);

  // A second restore: the same raw rows (each row id once), the same rollups.
  await restoreAnalytics(restored, backupDir, backup);
  await refreshRollups(restored);
  const [distinct] = await restored.query<{ n: number }>(
    `SELECT uniqExact(row_id) AS n FROM ${SEGMENT_DELIVERIES_TABLE}`,
  );
  assert.equal(Number(distinct?.n), 5);
  assert.equal(await rolledUp(restored), 5);
  await closeStore(restored);
});

it('refuses a backup of a newer schema than this release knows', async () => {
  // Refused before any request: no store needed.
  const nowhere = new ClickHouseHttp('http://127.0.0.1:1');
  await assert.rejects(
    restoreAnalytics(nowhere, join(dir, 'none'), { schemaVersion: 999, tables: [] }),
    /schema version 999, newer than this release's/,
  );
  await nowhere.close();
});
