// The experience rollups on a real store (chDB): views as the fold writes them, a refresher pass,
// and every grouping of every scope read from the rollups must equal the same figures computed
// from `playback_views FINAL` (the startup percentiles: quantileExact's, rounded up to their bucket).
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startChdbHttpServer, type ChdbHttpServer } from '@kino/dev';
import { AnalyticsStore, experienceGroupings, type ExperienceSums, type RollupScope } from './analytics-store.ts';
import { ClickHouseHttp } from './clickhouse.ts';
import {
  histogramQuantile,
  markPlaybackRollupDays,
  refreshExperienceRollups,
  startupBucketMs,
} from './experience-rollups.ts';
import { migrateClickHouse } from './migrations.ts';
import { PLAYBACK_VIEWS_TABLE, type playbackViewColumns } from './playback-view.ts';

type ViewRow = { [K in keyof typeof playbackViewColumns]: string | number };

describe('the startup histogram', () => {
  it('rounds up to 10 ms below 2 s, 50 ms to 10 s, 500 ms to 60 s, 10 s above', () => {
    assert.deepEqual(
      [0, 1, 10, 11, 2_000, 2_001, 2_050, 10_000, 10_001, 60_000, 60_001].map(startupBucketMs),
      [0, 10, 10, 20, 2_000, 2_050, 2_050, 10_000, 10_500, 60_000, 70_000],
    );
  });

  it('reads a percentile as the bucket of quantileExact’s figure (position ⌊q·n⌋ of the sorted times)', () => {
    for (let n = 1; n <= 300; n += 7) {
      const times = Array.from({ length: n }, (_, i) => (i * 7919) % 12_345).sort((a, b) => a - b);
      const histogram = new Map<number, number>();
      for (const t of times) histogram.set(startupBucketMs(t), (histogram.get(startupBucketMs(t)) ?? 0) + 1);
      const edges = [...histogram.keys()].sort((a, b) => a - b);
      for (const q of [0.5, 0.95])
        assert.equal(
          histogramQuantile(
            edges,
            edges.map((e) => histogram.get(e)!),
            q,
          ),
          startupBucketMs(times[Math.min(n - 1, Math.floor(q * n))]!),
          `n ${n}, q ${q}`,
        );
    }
  });
});

let dir: string;
let store: ChdbHttpServer;
let clickhouse: ClickHouseHttp;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kino-experience-rollups-'));
  store = await startChdbHttpServer({ dataDir: join(dir, 'chdb'), host: '127.0.0.1', port: await freePort() });
  clickhouse = new ClickHouseHttp(store.url);
  await migrateClickHouse(clickhouse);
});

afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

const BROWSERS = ['Chrome', 'Firefox', 'Safari'];
const SYSTEMS = ['Linux', 'Windows', 'iOS', 'Android'];
const HEIGHTS = [360, 720, 1080];

/** View `n` of organization `org`: every column a function of n (startup times 0–12 s, unrounded). */
function view(org: string, n: number, change: Partial<ViewRow> = {}): ViewRow {
  const day = `2026-03-0${1 + (n % 3)}`;
  const r = (n * 7919) % 100;
  return {
    org_id: org,
    day,
    env_id: `env_${n % 2}`,
    video_id: `vid_${n % 5}`,
    view_id: `${org}-view-${n}`,
    started_at: `${day} 10:00:00`,
    ended_at: `${day} 10:05:00`,
    browser: BROWSERS[n % 3]!,
    os: SYSTEMS[(n >> 1) % 4]!,
    player_name: 'kino-player',
    player_version: '1.0.0',
    rendition_height: HEIGHTS[(n >> 2) % 3]!,
    play_requested: r < 95 ? 1 : 0,
    started: r < 80 ? 1 : 0,
    startup_ms: r < 80 ? (n * 104_729) % 12_001 : 0,
    watch_ms: r < 80 ? (n * 31) % 600_000 : 0,
    rebuffer_count: r < 80 ? n % 4 : 0,
    rebuffer_ms: r < 80 ? (n % 4) * 700 : 0,
    failed: r >= 75 && r < 85 ? 1 : 0,
    error_code: r >= 75 && r < 85 ? 'network' : '',
    version: 10,
    ...change,
  };
}

/** The same sums from the views themselves (FINAL: each view's last fold). */
async function fromViews(scope: RollupScope, key: string): Promise<{ key: string; sums: ExperienceSums }[]> {
  const conditions = [`org_id = '${scope.orgId}'`, `day >= '${scope.from}'`, `day <= '${scope.to}'`];
  if (scope.envId) conditions.push(`env_id = '${scope.envId}'`);
  if (scope.videoId) conditions.push(`video_id = '${scope.videoId}'`);
  const rows = await clickhouse.query<Record<string, number | string | number[]>>(
    `SELECT ${key} AS key, count() AS views, sum(watch_ms) AS w, sum(rebuffer_ms) AS rm, sum(rebuffer_count) AS rc,
            countIf(failed = 1) AS f, countIf(play_requested = 1) AS p, countIf(play_requested = 1 AND started = 0 AND failed = 0) AS e,
            countIf(started = 1) AS s, quantilesExactIf(0.5, 0.95)(startup_ms, started = 1) AS q
     FROM ${PLAYBACK_VIEWS_TABLE} FINAL WHERE ${conditions.join(' AND ')} GROUP BY key ORDER BY key`,
  );
  return rows.map((r) => ({
    key: String(r.key),
    sums: {
      views: Number(r.views),
      watchMs: Number(r.w),
      rebufferMs: Number(r.rm),
      rebuffers: Number(r.rc),
      failures: Number(r.f),
      playRequests: Number(r.p),
      exitsBeforeStart: Number(r.e),
      starts: Number(r.s),
      startupP50: Number(r.s) === 0 ? 0 : startupBucketMs(Number((r.q as number[])[0])),
      startupP95: Number(r.s) === 0 ? 0 : startupBucketMs(Number((r.q as number[])[1])),
    },
  }));
}

const keyOf = {
  day: 'toString(day)',
  video: 'video_id',
  browser: 'browser',
  os: 'os',
  rendition: 'toString(rendition_height)',
};

async function assertRollupsAnswerAsViews(): Promise<void> {
  const analytics = new AnalyticsStore(clickhouse);
  const range = { orgId: 'org_a', from: '2026-03-01', to: '2026-03-02' };
  for (const scope of [range, { ...range, envId: 'env_1' }, { ...range, videoId: 'vid_3' }])
    for (const groupBy of experienceGroupings) {
      const rolled = (await analytics.experienceSums(scope, groupBy, { page: 1, pageSize: 100 })).groups.sort((a, b) =>
        a.key.localeCompare(b.key),
      );
      const expected = (await fromViews(scope, keyOf[groupBy])).sort((a, b) => a.key.localeCompare(b.key));
      assert.ok(expected.length > 0);
      assert.deepEqual(rolled, expected, `${JSON.stringify(scope)} by ${groupBy}`);
    }
}

it('answers every grouping of every scope as the views do, a refold that moved a view to another height included', async () => {
  const views = [
    ...Array.from({ length: 400 }, (_, n) => view('org_a', n)),
    ...Array.from({ length: 50 }, (_, n) => view('org_b', n)),
  ];
  await clickhouse.insert(PLAYBACK_VIEWS_TABLE, views);
  await markPlaybackRollupDays(clickhouse, views);
  const seen = new Map();
  assert.equal(await refreshExperienceRollups(clickhouse, seen), 6);
  await assertRollupsAnswerAsViews();

  // Late events fold some views again: other heights, a first frame, more watch time. Only their
  // last folds count, and the heights they left drop to what remains there.
  const refolded = [1, 2, 4, 7, 10].map((n) =>
    view('org_a', n, { rendition_height: 240, started: 1, startup_ms: 1_234, watch_ms: 9_999, version: 20 }),
  );
  await clickhouse.insert(PLAYBACK_VIEWS_TABLE, refolded);
  await markPlaybackRollupDays(clickhouse, refolded);
  // Their two days only (03-02 and 03-03), the marks already handled skipped.
  assert.equal(await refreshExperienceRollups(clickhouse, seen), 2);
  await assertRollupsAnswerAsViews();
  const heights = await new AnalyticsStore(clickhouse).experienceSums(
    { orgId: 'org_a', from: '2026-03-01', to: '2026-03-03' },
    'rendition',
  );
  assert.equal(heights.groups.find((h) => h.key === '240')?.sums.views, 5);
});

it("pages a grouping's keys, the most viewed first, so that the pages together are every key once", async () => {
  // Four more videos of 3, 6, 9 and 12 views beside the five of 80: the ranking decides the pages.
  const more = [1, 2, 3, 4].flatMap((k) =>
    Array.from({ length: 3 * k }, (_, i) =>
      view('org_a', 1_000 + 20 * k + i, { video_id: `vid_more_${k}`, view_id: `org_a-more-${k}-${i}` }),
    ),
  );
  await clickhouse.insert(PLAYBACK_VIEWS_TABLE, more);
  await markPlaybackRollupDays(clickhouse, more);
  await refreshExperienceRollups(clickhouse);
  const analytics = new AnalyticsStore(clickhouse);
  const scope = { orgId: 'org_a', from: '2026-03-01', to: '2026-03-03' };
  const all = (await fromViews(scope, keyOf.video)).sort(
    (a, b) => b.sums.views - a.sums.views || (a.key < b.key ? -1 : 1),
  );
  assert.equal(all.length, 9);
  const pages = [];
  for (let page = 1; ; page++) {
    const answer = await analytics.experienceSums(scope, 'video', { page, pageSize: 4 });
    assert.equal(answer.totalKeys, all.length);
    if (answer.groups.length === 0) break;
    pages.push(...answer.groups);
  }
  assert.deepEqual(pages, all);
});
