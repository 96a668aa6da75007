// `served` from the analytics store: segments the delivery nodes logged become estimated views
// (segments ÷ (duration ÷ 6)). Real PostgreSQL and the embedded analytics store (chDB over HTTP).
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  ClickHouseHttp,
  freePort,
  migrateClickHouse,
  newId,
  SEGMENT_DELIVERIES_TABLE,
  startChdbHttpServer,
  toClickHouseDateTime,
  type ChdbHttpServer,
} from '@kino/infra';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { createVideo, DEFAULT_ENCODING_PARAMETERS } from '@kino/control-plane';
import { seedTenancy, startApiHarness, type ApiHarness, type Json, type Tenancy } from './harness.ts';

let services: TestServices;
let analytics: ChdbHttpServer;
let clickhouse: ClickHouseHttp;
let api: ApiHarness;
let t: Tenancy;

beforeAll(async () => {
  services = await startTestServices({ postgres: true });
  analytics = await startChdbHttpServer({ dataDir: join(services.dir, 'chdb'), host: '127.0.0.1', port: await freePort() });
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
    parameters: DEFAULT_ENCODING_PARAMETERS,
  });
  await api.db.updateTable('videos').set({ status: 'ready', duration_seconds: durationSeconds }).where('id', '=', id).execute();
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
    // 60 s is 10 segments a view: 12,000 segments are 1,200 views.
    const popular = await seedReadyVideo('Popular', 60);
    const rows = segmentRows(popular, 12_000);
    await clickhouse.insert(SEGMENT_DELIVERIES_TABLE, rows);
    await clickhouse.insert(SEGMENT_DELIVERIES_TABLE, rows.slice(0, 500));
    const quiet = await seedReadyVideo('Quiet', 12);
    await clickhouse.insert(SEGMENT_DELIVERIES_TABLE, segmentRows(quiet, 2));
    const unseen = await seedReadyVideo('Unseen', 30);

    const details = await api.app.inject({ url: `/v1/api/${t.org.id}/videos/${popular}/details`, headers: { 'x-api-key': t.keys.full } });
    assert.equal(details.json<Json>().body.served, '1.2K views');
    const list = await api.app.inject({ url: `/v1/api/${t.org.id}/environments/${t.envA.id}/videos`, headers: { 'x-api-key': t.keys.full } });
    const served = Object.fromEntries(list.json<Json>().body.videos.map((v: Json) => [v.id, v.served]));
    assert.deepEqual(served, { [popular]: '1.2K views', [quiet]: '1 view', [unseen]: '0 views' });
  });

  it('reports analytics ok in /health when the store answers', async () => {
    const health = await api.app.inject({ url: '/v1/api/health' });
    assert.equal(health.json<Json>().body.checks.analytics.status, 'ok');
  });
});
