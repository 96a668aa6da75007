import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BeaconEventType } from '@kino/proto/contract';
import { freePort, startChdbHttpServer, type ChdbHttpServer } from '@kino/dev';
import { ClickHouseHttp } from './clickhouse.ts';
import { PLAYBACK_ROLLUP_MARKS_TABLE } from './experience-rollups.ts';
import { migrateClickHouse } from './migrations.ts';
import { foldView, refreshPlaybackViews, type StoredPlaybackEvent } from './playback-fold.ts';
import { insertPlaybackEvents, PlaybackEventEncoder, viewsOfLines } from './playback-event.ts';
import { PLAYBACK_VIEWS_TABLE } from './playback-view.ts';

let seq = 0;
function stored(type: BeaconEventType, at: number, extra: Partial<StoredPlaybackEvent> = {}): StoredPlaybackEvent {
  return {
    event_id: `e${seq++}`,
    received: Date.UTC(2026, 10, 28, 12, 0, 0) / 1000 + Math.floor(at / 1000),
    org_id: 'org_a',
    env_id: 'env_a',
    video_id: 'vid_a',
    view_id: 'view-1',
    type,
    at_ms: at,
    browser: 'Chrome',
    os: 'Linux',
    player_name: '@kino/player',
    player_version: '0.1.0',
    height: 0,
    error_code: '',
    fatal: 0,
    watched_ms: 0,
    ...extra,
  };
}

test('a view with two stalls: startup, rebuffers, watch time, the height played longest', () => {
  const events = [
    stored('viewstart', 0),
    stored('playrequest', 120),
    stored('rendition', 540, { height: 360 }),
    stored('firstframe', 610),
    stored('rendition', 2000, { height: 720 }),
    stored('rebufferstart', 2610),
    stored('rebufferend', 4120),
    stored('heartbeat', 5000, { watched_ms: 2880 }),
    stored('rebufferstart', 6610),
    stored('rebufferend', 8110),
    stored('heartbeat', 9900, { watched_ms: 3400 }),
    stored('viewend', 9900),
  ];
  // A batch shipped twice: its events again, same ids, in another order.
  const row = foldView([...events, ...events.slice(3, 8)].reverse());
  assert.equal(row.started, 1);
  assert.equal(row.play_requested, 1);
  assert.equal(row.startup_ms, 490);
  assert.equal(row.rebuffer_count, 2);
  assert.equal(row.rebuffer_ms, 1510 + 1500);
  assert.equal(row.watch_ms, 6280);
  assert.equal(row.rendition_height, 720);
  assert.equal(row.failed, 0);
  assert.equal(row.version, 12);
  assert.equal(row.day, '2026-11-28');
  assert.equal(row.started_at, '2026-11-28 12:00:00');
  assert.equal(row.ended_at, '2026-11-28 12:00:09');
});

test('a failed view has its code; a view closed before its first frame is an exit before start', () => {
  const failed = foldView([
    stored('viewstart', 0),
    stored('playrequest', 80),
    stored('error', 3000, { error_code: 'fragLoadError', fatal: 1 }),
    stored('viewend', 3000),
  ]);
  assert.deepEqual([failed.failed, failed.error_code, failed.started], [1, 'fragLoadError', 0]);
  const exit = foldView([stored('viewstart', 0), stored('playrequest', 50), stored('viewend', 900)]);
  assert.deepEqual([exit.play_requested, exit.started, exit.failed, exit.startup_ms], [1, 0, 0, 0]);
});

test('event lines name their organization and view for the marks, escaped ids read back', () => {
  const lines = new PlaybackEventEncoder().lines(
    {
      orgId: 'org\ta',
      envId: 'env',
      videoId: 'vid',
      viewId: 'view-1',
      browser: 'Firefox',
      os: 'Windows',
      player: { name: '@kino/player', version: '0.1.0' },
    },
    [
      { type: 'viewstart', at: 0 },
      { type: 'heartbeat', at: 10, watchedMs: 10 },
    ],
  );
  assert.equal(lines.split('\n').length, 3);
  for (const line of lines.trim().split('\n')) assert.equal(line.split('\t').length, 20); // org_id's tab is escaped
  assert.deepEqual(viewsOfLines(lines), [{ orgId: 'org\ta', viewId: 'view-1' }]);
});

let dir: string;
let store: ChdbHttpServer;
let clickhouse: ClickHouseHttp;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kino-playback-fold-'));
  store = await startChdbHttpServer({ dataDir: join(dir, 'chdb'), host: '127.0.0.1', port: await freePort() });
  clickhouse = new ClickHouseHttp(store.url);
  await migrateClickHouse(clickhouse);
});

afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

test('a view whose last batch landed before its first is folded once both are in, and its day marked for the rollups', async () => {
  const encoder = new PlaybackEventEncoder();
  const context = {
    orgId: 'org_fold',
    envId: 'env',
    videoId: 'vid',
    viewId: 'view-late-start',
    browser: 'Chrome',
    os: 'Linux',
    player: { name: '@kino/player', version: '0.1.0' },
  };
  const ship = (text: string) => insertPlaybackEvents(clickhouse, { data: Buffer.from(text), text });
  // A page going sends two beacons at once; the second (with the viewend) lands first.
  await ship(
    encoder.lines(context, [
      { type: 'heartbeat', at: 9_000, watchedMs: 4_000 },
      { type: 'viewend', at: 9_100 },
    ]),
  );
  const memory = new Map();
  assert.equal(await refreshPlaybackViews(clickhouse, { memory }), 0, 'no fold without the viewstart');
  await ship(
    encoder.lines(context, [
      { type: 'viewstart', at: 0 },
      { type: 'playrequest', at: 100 },
      { type: 'firstframe', at: 700 },
      { type: 'heartbeat', at: 5_000, watchedMs: 4_300 },
    ]),
  );
  assert.equal(await refreshPlaybackViews(clickhouse, { memory }), 1);
  const rows = await clickhouse.query<{ version: number; startup_ms: number; watch_ms: number }>(
    `SELECT version, startup_ms, watch_ms FROM ${PLAYBACK_VIEWS_TABLE} FINAL WHERE org_id = 'org_fold'`,
  );
  assert.deepEqual(
    rows.map((r) => [Number(r.version), Number(r.startup_ms), Number(r.watch_ms)]),
    [[6, 600, 8_300]],
  );
  const [marks] = await clickhouse.query<{ n: number }>(
    `SELECT count() AS n FROM ${PLAYBACK_ROLLUP_MARKS_TABLE} WHERE org_id = 'org_fold' AND day IN (SELECT day FROM ${PLAYBACK_VIEWS_TABLE} WHERE org_id = 'org_fold')`,
  );
  assert.equal(Number(marks?.n), 1);
});
