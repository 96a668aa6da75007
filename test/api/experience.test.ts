// Experience analytics (issue 58) from known playback views: rows inserted into the real analytics
// store (chDB over HTTP) as the beacon fold writes them, read through the API's three experience
// paths, every figure checked. The rows include a view folded twice (the first fold before its
// first frame, the second after: only the second may count), another organization's views and views
// outside the range. Real PostgreSQL for the tenancy and the videos.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { newId } from '@kino/infra';
import type { playbackViewColumns } from '@kino/analytics';
import {
  ClickHouseHttp,
  markPlaybackRollupDays,
  migrateClickHouse,
  PLAYBACK_VIEWS_TABLE,
  refreshExperienceRollups,
} from '@kino/analytics';
import { freePort, kinoBin, startChdbHttpServer, type ChdbHttpServer } from '@kino/dev';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { createVideo } from '@kino/database/repositories';
import { defaultEncodingParameters } from '@kino/proto/contract';
import {
  assertErrorEnvelope,
  seedTenancy,
  startApiHarness,
  type ApiHarness,
  type Json,
  type Tenancy,
} from './harness.ts';

let services: TestServices;
let analytics: ChdbHttpServer;
let clickhouse: ClickHouseHttp;
let api: ApiHarness;
let t: Tenancy;
let videoA: string;
let videoB: string;

type ViewRow = { [K in keyof typeof playbackViewColumns]: string | number };

async function seedVideo(envId: string): Promise<string> {
  const id = newId('vid');
  await createVideo(api.db, {
    id,
    orgId: t.org.id,
    envId,
    name: 'Watched',
    storagePath: `uploads/${t.org.id}/${envId}/${newId('upl')}/a.mp4`,
    videoQuality: 'standard',
    allowPublicAccess: true,
    parameters: defaultEncodingParameters,
  });
  return id;
}

/** A view of video A in environment A on 2026-03-01 that started in 400 ms, with what a case changes. */
function view(change: Partial<ViewRow>): ViewRow {
  const day = (change.day as string | undefined) ?? '2026-03-01';
  return {
    org_id: t.org.id,
    day,
    env_id: t.envA.id,
    video_id: videoA,
    view_id: randomUUID(),
    started_at: `${day} 10:00:00`,
    ended_at: `${day} 10:05:00`,
    browser: 'Chrome',
    os: 'Linux',
    player_name: 'kino-player',
    player_version: '1.0.0',
    rendition_height: 720,
    play_requested: 1,
    started: 1,
    startup_ms: 400,
    watch_ms: 0,
    rebuffer_count: 0,
    rebuffer_ms: 0,
    failed: 0,
    error_code: '',
    version: 10,
    ...change,
  };
}

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
  videoA = await seedVideo(t.envA.id);
  videoB = await seedVideo(t.envB.id);

  // With merges stopped a view's two folds both stay in the table, as they do between a fold and
  // the next merge: the figures must count the later one only.
  await clickhouse.exec(`SYSTEM STOP MERGES ${PLAYBACK_VIEWS_TABLE}`);
  const refolded = view({ startup_ms: 400, watch_ms: 120_000, rebuffer_count: 3, rebuffer_ms: 6_000, version: 9 });
  await clickhouse.insert(PLAYBACK_VIEWS_TABLE, [
    // Its first fold, before the first frame arrived: it looked like an exit before start.
    { ...refolded, started: 0, startup_ms: 0, watch_ms: 0, rebuffer_count: 0, rebuffer_ms: 0, version: 4 },
  ]);
  const views = [
    // 2026-03-01, environment A, video A.
    refolded,
    view({ browser: 'Firefox', os: 'Windows', rendition_height: 1080, startup_ms: 1_000, watch_ms: 30_000 }),
    view({ started: 0, startup_ms: 0, failed: 1, error_code: 'media' }),
    view({ startup_ms: 700, watch_ms: 60_000 }),
    // 2026-03-03: an exit before start (A), a view failed after it started and one that never
    // requested play (B).
    view({ day: '2026-03-03', os: 'macOS', rendition_height: 480, started: 0, startup_ms: 0 }),
    view({
      day: '2026-03-03',
      env_id: t.envB.id,
      video_id: videoB,
      browser: 'Safari',
      os: 'iOS',
      startup_ms: 200,
      watch_ms: 240_000,
      rebuffer_count: 1,
      rebuffer_ms: 1_200,
      failed: 1,
      error_code: 'network',
    }),
    view({ day: '2026-03-03', env_id: t.envB.id, video_id: videoB, os: 'Android', play_requested: 0, started: 0 }),
    // Outside the range, and another organization's view inside it.
    view({ day: '2026-02-28', startup_ms: 9_000, watch_ms: 1_000 }),
    view({ day: '2026-03-04', startup_ms: 9_000, watch_ms: 1_000 }),
    view({ org_id: t.otherOrg.id, env_id: t.otherEnv.id, startup_ms: 9_000, watch_ms: 1_000, failed: 1 }),
  ];
  await clickhouse.insert(PLAYBACK_VIEWS_TABLE, views);
  // The endpoints read the experience rollups: the days marked as the fold marks them, then one
  // refresher pass (from the views with FINAL: the refolded view counts by its last fold).
  await markPlaybackRollupDays(clickhouse, views);
  await refreshExperienceRollups(clickhouse);
});

afterAll(async () => {
  await api?.close();
  await analytics?.close();
  await services?.stop();
});

async function experience(path: string, key = t.keys.full): Promise<Json[]> {
  const response = await api.app.inject({ url: `/v1/api/${t.org.id}${path}`, headers: { 'x-api-key': key } });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<Json>().body.experience;
}

const range = 'startDate=2026-03-01&endDate=2026-03-03';
const noViews = (key: string) => ({
  key,
  views: 0,
  watchTimeSeconds: 0,
  startupMsP50: null,
  startupMsP95: null,
  rebufferPercent: 0,
  rebuffersPerMinute: 0,
  failurePercent: 0,
  exitsBeforeStartPercent: 0,
});

describe('experience analytics', () => {
  it('lists every day of the range with Mux Data’s figures, a view folded twice counted once', async () => {
    assert.deepEqual(await experience(`/analytics/experience?${range}&groupBy=day`), [
      {
        key: '2026-03-01',
        views: 4,
        watchTimeSeconds: 210,
        // Startups 400, 700, 1000: quantileExact takes the value at ⌊q·n⌋ of the sorted times.
        startupMsP50: 700,
        startupMsP95: 1_000,
        rebufferPercent: 100 * (6_000 / 210_000),
        rebuffersPerMinute: 3 / 3.5,
        failurePercent: 25,
        exitsBeforeStartPercent: 0,
      },
      noViews('2026-03-02'),
      {
        key: '2026-03-03',
        views: 3,
        watchTimeSeconds: 240,
        startupMsP50: 200,
        startupMsP95: 200,
        rebufferPercent: 0.5,
        rebuffersPerMinute: 0.25,
        failurePercent: 100 * (1 / 3),
        // Two views requested play; one neither started nor failed.
        exitsBeforeStartPercent: 50,
      },
    ]);
  });

  it('groups by browser, OS, rendition and video, most viewed first', async () => {
    const byBrowser = await experience(`/analytics/experience?${range}&groupBy=browser`);
    assert.deepEqual(byBrowser[0], {
      key: 'Chrome',
      views: 5,
      watchTimeSeconds: 180,
      startupMsP50: 700,
      startupMsP95: 700,
      rebufferPercent: 100 * (6_000 / 180_000),
      rebuffersPerMinute: 1,
      failurePercent: 20,
      exitsBeforeStartPercent: 25,
    });
    const keysAndViews = (records: Json[]) => records.map((r) => [r.key, r.views]);
    assert.deepEqual(keysAndViews(byBrowser), [
      ['Chrome', 5],
      ['Firefox', 1],
      ['Safari', 1],
    ]);
    assert.deepEqual(keysAndViews(await experience(`/analytics/experience?${range}&groupBy=os`)), [
      ['Linux', 3],
      ['Android', 1],
      ['Windows', 1],
      ['iOS', 1],
      ['macOS', 1],
    ]);
    assert.deepEqual(keysAndViews(await experience(`/analytics/experience?${range}&groupBy=rendition`)), [
      ['720', 5],
      ['1080', 1],
      ['480', 1],
    ]);
    assert.deepEqual(keysAndViews(await experience(`/analytics/experience?${range}&groupBy=video`)), [
      [videoA, 5],
      [videoB, 2],
    ]);
  });

  it('pages the keys of a grouping, the most viewed first', async () => {
    const keysAndViews = (records: Json[]) => records.map((r) => [r.key, r.views]);
    const page = async (n: number) => {
      const response = await api.app.inject({
        url: `/v1/api/${t.org.id}/analytics/experience?${range}&groupBy=video&pageSize=1&page=${n}`,
        headers: { 'x-api-key': t.keys.full },
      });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json<Json>().body as { experience: Json[]; pagination: Json };
      return [keysAndViews(body.experience), body.pagination];
    };
    const pagination = { total: 2, pageSize: 1, totalPages: 2 };
    assert.deepEqual(await page(1), [[[videoA, 5]], { ...pagination, page: 1, hasNext: true, hasPrevious: false }]);
    assert.deepEqual(await page(2), [[[videoB, 2]], { ...pagination, page: 2, hasNext: false, hasPrevious: true }]);
    const tooLarge = await api.app.inject({
      url: `/v1/api/${t.org.id}/analytics/experience?${range}&groupBy=video&pageSize=101`,
      headers: { 'x-api-key': t.keys.full },
    });
    assertErrorEnvelope(tooLarge.json(), 400, 'invalid_page_size', assert);
  });

  it('narrows to an environment and to one video', async () => {
    const envB = await experience(`/environments/${t.envB.id}/analytics/experience?${range}&groupBy=os`);
    assert.deepEqual(envB, [
      { ...noViews('Android'), views: 1 },
      {
        key: 'iOS',
        views: 1,
        watchTimeSeconds: 240,
        startupMsP50: 200,
        startupMsP95: 200,
        rebufferPercent: 0.5,
        rebuffersPerMinute: 0.25,
        failurePercent: 100,
        exitsBeforeStartPercent: 0,
      },
    ]);
    // An environment key sees its own environment on the organization's path.
    const envKey = await experience(`/analytics/experience?${range}&groupBy=video`, t.keys.envB);
    assert.deepEqual(
      envKey.map((r) => [r.key, r.views]),
      [[videoB, 2]],
    );
    const oneVideo = await experience(`/videos/${videoA}/analytics/experience?${range}&groupBy=rendition`);
    assert.deepEqual(
      oneVideo.map((r) => [r.key, r.views, r.startupMsP50]),
      [
        ['720', 3, 700],
        ['1080', 1, 1_000],
        ['480', 1, null],
      ],
    );
  });

  it('refuses a bad grouping, a reversed range and another organization’s video', async () => {
    const get = (path: string, key = t.keys.full) =>
      api.app.inject({ url: `/v1/api/${t.org.id}${path}`, headers: { 'x-api-key': key } });
    let response = await get(`/analytics/experience?${range}&groupBy=week`);
    assertErrorEnvelope(response.json(), 400, 'invalid_group_by', assert);
    response = await get('/analytics/experience?startDate=2026-03-03&endDate=2026-03-01');
    assertErrorEnvelope(response.json(), 400, 'invalid_date_range', assert);
    response = await get('/analytics/experience?startDate=2025-01-01&endDate=2026-03-01');
    assertErrorEnvelope(response.json(), 400, 'date_range_too_long', assert);
    response = await get(`/videos/${videoA}/analytics/experience?${range}`, t.keys.envB);
    assert.equal(response.statusCode, 403);
    response = await api.app.inject({
      url: `/v1/api/${t.otherOrg.id}/videos/${videoA}/analytics/experience?${range}`,
      headers: { 'x-api-key': t.keys.otherFull },
    });
    assertErrorEnvelope(response.json(), 404, 'video_not_found', assert);
  });

  it('answers `kino analytics experience` with the same figures, as JSON and as a table', async () => {
    const base = await api.app.listen({ host: '127.0.0.1', port: 0 });
    const kino = (args: string[]) =>
      promisify(execFile)(
        process.execPath,
        [kinoBin, 'analytics', 'experience', '--from', '2026-03-01', '--to', '2026-03-03', ...args],
        {
          env: {
            PATH: process.env.PATH ?? '',
            HOME: services.dir,
            NO_COLOR: '1',
            KINO_API_URL: `${base}/v1/api`,
            KINO_API_KEY: t.keys.full,
            KINO_ORG: t.org.id,
          },
        },
      );
    const json = JSON.parse((await kino(['--all-envs', '--group-by', 'browser', '--json'])).stdout) as Json[];
    assert.deepEqual(json, await experience(`/analytics/experience?${range}&groupBy=browser`));
    const table = (await kino(['--video', videoA, '--group-by', 'rendition'])).stdout;
    assert.match(table, /Resolution\s+Views\s+Watch min\s+Startup p50\s+Startup p95/);
    assert.match(table, /720p\s+3\s+3\s+700 ms\s+700 ms\s+3\.33 %\s+1\.00\s+33\.33 %\s+0\.00 %/);
  });
});
