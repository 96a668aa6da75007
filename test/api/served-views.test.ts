// `served` from the analytics store: segments the delivery nodes logged become estimated views
// (segments ÷ (duration ÷ 6)). Real PostgreSQL and the embedded analytics store (chDB over HTTP).
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { newId } from '@kino/infra';
import {
  ClickHouseHttp,
  markRollupDays,
  migrateClickHouse,
  refreshRollups,
  rollupDaysOf,
  SEGMENT_DELIVERIES_TABLE,
  toClickHouseDateTime,
} from '@kino/analytics';
import { freePort, startChdbHttpServer, type ChdbHttpServer } from '@kino/dev';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { copyServedSegments } from '@kino/api';
import { createVideo } from '@kino/database/repositories';
import { defaultEncodingParameters } from '@kino/proto/contract';
import { seedTenancy, startApiHarness, type ApiHarness, type Json, type Tenancy } from './harness.ts';

let services: TestServices;
let analytics: ChdbHttpServer;
let clickhouse: ClickHouseHttp;
let api: ApiHarness;
let t: Tenancy;

beforeAll(async () => {
  services = await startTestServices({ postgres: true });
  analytics = await startChdbHttpServer({
    dataDir: join(services.dir, 'chdb'),
    host: '127.0.0.1',
    port: await freePort(),
  });
  clickhouse = new ClickHouseHttp(analytics.url);
  await migrateClickHouse(clickhouse);
  api = await startApiHarness(services, { clickhouse });
  t = await seedTenancy(api.db);
});

afterAll(async () => {
  await api?.close();
  await analytics?.close();
  await services?.stop();
});

async function seedReadyVideo(name: string, durationSeconds: number): Promise<string> {
  const id = newId('vid');
  await createVideo(api.db, {
    id,
    orgId: t.org.id,
    envId: t.envA.id,
    name,
    storagePath: `uploads/${t.org.id}/${t.envA.id}/${newId('upl')}/a.mp4`,
    videoQuality: 'standard',
    allowPublicAccess: true,
    parameters: defaultEncodingParameters,
  });
  await api.db
    .updateTable('videos')
    .set({ status: 'ready', duration_seconds: durationSeconds })
    .where('id', '=', id)
    .execute();
  return id;
}

function segmentRows(videoId: string, count: number, prefix = videoId) {
  return Array.from({ length: count }, (_, i) => ({
    row_id: `${prefix}-${i}`,
    served_at: toClickHouseDateTime(new Date()),
    org_id: t.org.id,
    env_id: t.envA.id,
    video_id: videoId,
    rendition_height: 720,
    segment_index: i % 10,
    bytes: 1000,
    access: 'public',
    node_id: 'delivery-test',
  }));
}

describe('served', () => {
  it('estimates views from the segments delivery logged, counting a re-shipped row once', async () => {
    // ReplacingMergeTree drops repeated rows only when it merges parts, at a time of its choosing.
    // With merges stopped the re-shipped rows stay in the table, as they do in production between
    // a re-ship and the next merge: the estimate must not count them.
    await clickhouse.exec(`SYSTEM STOP MERGES ${SEGMENT_DELIVERIES_TABLE}`);
    // 60 s is 10 segments a view: 12,000 segments are 1,200 views. Counted twice, the 1,000
    // re-shipped rows would make 1,300 views ("1.3K views").
    const popular = await seedReadyVideo('Popular', 60);
    const rows = segmentRows(popular, 12_000);
    await clickhouse.insert(SEGMENT_DELIVERIES_TABLE, rows);
    await clickhouse.insert(SEGMENT_DELIVERIES_TABLE, rows.slice(0, 1_000));
    // 12 s is 2 segments a view: 2 segments are 1 view, or 2 views ("2 views") if counted twice.
    const quiet = await seedReadyVideo('Quiet', 12);
    const quietRows = segmentRows(quiet, 2);
    await clickhouse.insert(SEGMENT_DELIVERIES_TABLE, quietRows);
    await clickhouse.insert(SEGMENT_DELIVERIES_TABLE, quietRows);
    const unseen = await seedReadyVideo('Unseen', 30);
    const stored = await clickhouse.query<{ video_id: string; n: number }>(
      `SELECT video_id, count() AS n FROM ${SEGMENT_DELIVERIES_TABLE} GROUP BY video_id`,
    );
    assert.deepEqual(Object.fromEntries(stored.map((row) => [row.video_id, row.n])), { [popular]: 13_000, [quiet]: 4 });
    // What the delivery shipper and the API's rollup refresher do after such inserts: `served`
    // reads the rollup's figures (recomputed from the raw rows, copies counted once), which the
    // refresher copies to PostgreSQL after its pass.
    await markRollupDays(clickhouse, rollupDaysOf([...rows, ...quietRows]));
    await refreshRollups(clickhouse, new Map(), copyServedSegments(api.db, clickhouse));

    const details = await api.app.inject({
      url: `/v1/api/${t.org.id}/videos/${popular}/details`,
      headers: { 'x-api-key': t.keys.full },
    });
    assert.equal(details.json<Json>().body.served, '1.2K views');
    const list = await api.app.inject({
      url: `/v1/api/${t.org.id}/environments/${t.envA.id}/videos`,
      headers: { 'x-api-key': t.keys.full },
    });
    const served = Object.fromEntries(list.json<Json>().body.videos.map((v: Json) => [v.id, v.served]));
    assert.deepEqual(served, { [popular]: '1.2K views', [quiet]: '1 view', [unseen]: '0 views' });
  });

  it('reports analytics ok in /health when the store answers', async () => {
    const health = await api.app.inject({ url: '/v1/api/health' });
    assert.equal(health.json<Json>().body.checks.analytics.status, 'ok');
  });
});
