// Experience analytics benchmark (issue 58, item 4): a synthetic history of playback views (default
// 10 million over 90 days, 3 environments, 1,000 videos, five browsers, five operating systems, five
// heights, and one view in 50 folded twice), then the experience endpoint called through the real
// API (`kino api` of a dev stack) per grouping, BENCH --calls times each, p50 and p95 printed beside
// a baseline: the same figures from a GROUP BY over the views themselves that keeps each view's last
// fold with argMax by version, which must give the same numbers (the run fails otherwise; startup
// percentiles: quantileExact's rounded up to the rollup histogram's bucket). Before the calls the
// days are marked and rolled up by one refresher pass, timed.
//
// The views are generated inside ClickHouse (INSERT ... SELECT FROM numbers()), every column a hash
// of the view's number: the same history on every run (no random seed to keep).
//
// Usage: npm run bench:experience -- [--views=10000000] [--calls=100] [--runs=1] [--analytics=clickhouse-server|chdb]
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { newId } from '@kino/infra';
import {
  AnalyticsStore,
  clickHouseString,
  experienceFigures,
  ClickHouseHttp,
  markEveryViewedDay,
  PLAYBACK_VIEWS_TABLE,
  refreshExperienceRollups,
  startupBucketMs,
  type ExperienceGrouping,
} from '@kino/analytics';
import { createEnvironment, deleteRateLimitCountersBefore } from '@kino/database/repositories';
import { openDatabase } from '@kino/database';
import { startTestStack } from '../../test/support/stack.ts';

const { values: flags } = parseArgs({
  options: {
    views: { type: 'string', default: '10000000' },
    calls: { type: 'string', default: '100' },
    runs: { type: 'string', default: '1' },
    analytics: { type: 'string', default: 'clickhouse-server' },
  },
});
const totalViews = Number(flags.views);
const calls = Number(flags.calls);
const runs = Math.max(1, Number(flags.runs));
const analytics = flags.analytics as 'clickhouse-server' | 'chdb';
const VIDEOS = 1_000;
const DAYS = 90;
const CHUNK = 5_000_000;
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge', 'Samsung Internet'];
const SYSTEMS = ['Windows', 'macOS', 'iOS', 'Android', 'Linux'];
const HEIGHTS = [240, 360, 480, 720, 1080];
const GOAL_P95_MS = 100;

const log = (text: string) => process.stderr.write(`[bench] ${text}\n`);
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const list = (values: readonly (string | number)[]) =>
  `[${values.map((v) => (typeof v === 'string' ? clickHouseString(v) : v)).join(',')}]`;

// The API's own rollup refresher waits an hour: the bench runs the pass itself, once, and times it.
const stack = await startTestStack({
  nodes: 0,
  without: ['temporal', 'orchestrator', 'delivery'],
  analytics,
  env: { api: { ANALYTICS_ROLLUP_INTERVAL_MS: '3600000' } },
});
const db = await openDatabase(stack.env.DATABASE_URL!);
const clickhouse = new ClickHouseHttp(stack.env.CLICKHOUSE_URL!, 1_800_000);
const { apiUrl, apiKey, orgId, envId } = stack.status.devJson;
try {
  const envIds = [
    envId,
    (await createEnvironment(db, { orgId, name: 'staging' })).id,
    (await createEnvironment(db, { orgId, name: 'dev' })).id,
  ];
  const videoIds = Array.from({ length: VIDEOS }, () => newId('vid'));
  await db
    .insertInto('videos')
    .values(
      videoIds.map((id, i) => ({
        id,
        org_id: orgId,
        env_id: envIds[i % 3]!,
        name: `bench ${i}`,
        description: null,
        status: 'ready' as const,
        failure_reason: null,
        storage_path: `uploads/${orgId}/${id}/source.mp4`,
        video_quality: 'standard' as const,
        allow_public_access: true,
        parameters: '{}',
        duration_seconds: 600,
        source_width: 1920,
        source_height: 1080,
        source_frame_rate: 30,
        thumbnail_key: null,
        ready_at: new Date(),
        deleted_at: null,
        delete_reason: null,
      })),
    )
    .execute();

  // One view per number n. r (0..999) decides its outcome: < 10 started then failed, < 940 started,
  // < 955 failed before its first frame, < 970 an exit before start, else no play request.
  const today = Math.floor(Date.now() / 86_400_000);
  const firstDay = today - DAYS + 1;
  const columns = `org_id, day, env_id, video_id, view_id, started_at, ended_at, browser, os, player_name, player_version,
    rendition_height, play_requested, started, startup_ms, watch_ms, rebuffer_count, rebuffer_ms, failed, error_code, version`;
  const views = (version: string, where: string, offset: number, count: number) =>
    `SELECT ${clickHouseString(orgId)}, toDate(${firstDay} + intDiv(n * ${DAYS}, ${totalViews})),
            arrayElement(${list(envIds)}, (v % 3) + 1), arrayElement(${list(videoIds)}, v + 1), concat('view-', toString(n)),
            toDateTime((${firstDay} + intDiv(n * ${DAYS}, ${totalViews})) * 86400), toDateTime((${firstDay} + intDiv(n * ${DAYS}, ${totalViews})) * 86400 + 600),
            arrayElement(${list(BROWSERS)}, (intHash32(n) % 5) + 1), arrayElement(${list(SYSTEMS)}, (intHash32(n + 1) % 5) + 1),
            'kino-player', '1.0.0', arrayElement(${list(HEIGHTS)}, (intHash32(n + 2) % 5) + 1),
            toUInt8(r < 970), toUInt8(r < 940 ${version === 'first' ? 'AND 0' : ''}), if(r < 940, 200 + intHash32(n + 3) % 3000, 0),
            if(r < 940, intHash32(n + 4) % 600000, 0), if(r < 940, intHash32(n + 5) % 4, 0),
            if(r < 940, (intHash32(n + 5) % 4) * (intHash32(n + 6) % 2000), 0),
            toUInt8(r < 10 OR (r >= 940 AND r < 955)), if(r < 10 OR (r >= 940 AND r < 955), 'network', ''), ${version === 'first' ? 5 : 10}
     FROM (SELECT number + ${offset} AS n, intHash64(number + ${offset}) % ${VIDEOS} AS v, intHash32(number + ${offset} + 7) % 1000 AS r
           FROM numbers(${count})) WHERE ${where}`;
  let t0 = Date.now();
  for (let offset = 0; offset < totalViews; offset += CHUNK) {
    const count = Math.min(CHUNK, totalViews - offset);
    // One view in 50 was folded first before its first frame (version 5), then again (version 10).
    await clickhouse.exec(
      `INSERT INTO ${PLAYBACK_VIEWS_TABLE} (${columns}) ${views('first', 'n % 50 = 0', offset, count)}`,
    );
    await clickhouse.exec(`INSERT INTO ${PLAYBACK_VIEWS_TABLE} (${columns}) ${views('last', '1', offset, count)}`);
    log(`views ${offset + count}/${totalViews}`);
  }
  const loadMs = Date.now() - t0;
  // The experience rollups the endpoints read: every day marked, as the fold marks the days of the
  // views it writes, then one refresher pass (a week of the organization per recompute).
  t0 = Date.now();
  await clickhouse.exec(markEveryViewedDay);
  const rolledDays = await refreshExperienceRollups(clickhouse);
  const rollupMs = Date.now() - t0;
  log(`rolled up ${rolledDays} days in ${(rollupMs / 1000).toFixed(1)} s`);
  const [stored] = await clickhouse.query<{ n: number }>(`SELECT count() AS n FROM ${PLAYBACK_VIEWS_TABLE}`);

  const dayText = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);
  const range = `startDate=${dayText(firstDay)}&endDate=${dayText(today)}`;
  const org = clickHouseString(orgId);
  // The baseline: each view's last fold by argMax(…, version), then the same sums. Grouping 10 M view
  // ids passes the server's 2 GB per query: past 1 GB the grouping spills to disk.
  const baseline = (key: string, where: string) =>
    `SELECT ${key} AS key, count() AS views, sum(w) AS watch_ms, sum(rm) AS rebuffer_ms, sum(rc) AS rebuffers,
            countIf(f = 1) AS failures, countIf(s = 1) AS starts, countIf(p = 1) AS play_requests, countIf(p = 1 AND s = 0 AND f = 0) AS exits,
            quantilesExactIf(0.5, 0.95)(su, s = 1) AS startup
     FROM (SELECT day, video_id, browser, os, rendition_height, argMax(play_requested, version) AS p, argMax(started, version) AS s,
                  argMax(startup_ms, version) AS su, argMax(watch_ms, version) AS w, argMax(rebuffer_count, version) AS rc,
                  argMax(rebuffer_ms, version) AS rm, argMax(failed, version) AS f
           FROM ${PLAYBACK_VIEWS_TABLE} WHERE org_id = ${org} AND ${where}
           GROUP BY org_id, day, env_id, video_id, view_id, browser, os, rendition_height)
     GROUP BY key
     SETTINGS max_bytes_before_external_group_by = 1000000000`;
  const inRange = `day >= toDate('${dayText(firstDay)}') AND day <= toDate('${dayText(today)}')`;
  const keyOf = {
    day: 'toString(day)',
    video: 'video_id',
    browser: 'browser',
    os: 'os',
    rendition: 'toString(rendition_height)',
  };
  const endpoints = [
    ...(['day', 'video', 'browser', 'os', 'rendition'] as const).map((groupBy) => ({
      name: `organization, ${DAYS} days, by ${groupBy}`,
      scope: {},
      groupBy: groupBy as ExperienceGrouping,
      path: `/${orgId}/analytics/experience?${range}&groupBy=${groupBy}`,
      raw: baseline(keyOf[groupBy], inRange),
    })),
    {
      name: `one environment, ${DAYS} days, by day`,
      scope: { envId: envIds[1]! },
      groupBy: 'day' as ExperienceGrouping,
      path: `/${orgId}/environments/${envIds[1]}/analytics/experience?${range}&groupBy=day`,
      raw: baseline(keyOf.day, `${inRange} AND env_id = ${clickHouseString(envIds[1]!)}`),
    },
    {
      name: `one video, ${DAYS} days, by day`,
      scope: { videoId: videoIds[7]! },
      groupBy: 'day' as ExperienceGrouping,
      path: `/${orgId}/videos/${videoIds[7]}/analytics/experience?${range}&groupBy=day`,
      raw: baseline(keyOf.day, `${inRange} AND video_id = ${clickHouseString(videoIds[7]!)}`),
    },
  ];

  type Row = Record<string, unknown>;
  // Ratios compared at 9 significant digits: the API divides in JavaScript, the baseline in ClickHouse.
  const figures = (r: Row) =>
    [
      r.key,
      r.views,
      r.watchTimeSeconds,
      r.startupMsP50,
      r.startupMsP95,
      r.rebufferPercent,
      r.rebuffersPerMinute,
      r.failurePercent,
      r.exitsBeforeStartPercent,
    ]
      .map((v) => (typeof v === 'number' ? Number(v.toPrecision(9)) : v))
      .join(' ');
  const fromBaseline = (r: Row): Row => {
    const [views, watch, rebufferMs, rebuffers, failures, playRequests, exits] = [
      r.views,
      r.watch_ms,
      r.rebuffer_ms,
      r.rebuffers,
      r.failures,
      r.play_requests,
      r.exits,
    ].map(Number) as [number, number, number, number, number, number, number];
    const started = Number(r.starts) > 0;
    // The endpoint reads startup percentiles from the rollup's histogram: quantileExact's figure
    // rounded up to its bucket, which is what it must equal.
    return {
      key: r.key,
      views,
      watchTimeSeconds: watch / 1000,
      startupMsP50: started ? startupBucketMs(Number((r.startup as number[])[0])) : null,
      startupMsP95: started ? startupBucketMs(Number((r.startup as number[])[1])) : null,
      rebufferPercent: watch ? (100 * rebufferMs) / watch : 0,
      rebuffersPerMinute: watch ? rebuffers / (watch / 60_000) : 0,
      failurePercent: views ? (100 * failures) / views : 0,
      exitsBeforeStartPercent: playRequests ? (100 * exits) / playRequests : 0,
    };
  };

  const rounds = new Map(
    endpoints.map((e) => [
      e.name,
      {
        p50: [] as number[],
        p95: [] as number[],
        raw: [] as number[],
        store: [] as number[],
        timeouts: 0,
        failures: [] as string[],
      },
    ]),
  );
  // The endpoint's own query without the API's 5 s store timeout: what a call would take if it waited.
  const store = new AnalyticsStore(clickhouse);
  t0 = Date.now();
  for (let run = 0; run < runs; run++) {
    for (const endpoint of endpoints) {
      await deleteRateLimitCountersBefore(db, new Date(Date.now() + 86_400_000));
      const times: number[] = [];
      let answer: Row[] = [];
      for (let i = 0; i < calls; i++) {
        const began = performance.now();
        const response = await fetch(`${apiUrl}${endpoint.path}`, { headers: { 'X-Api-Key': apiKey } });
        const text = await response.text();
        times.push(performance.now() - began);
        // 503: the query outlived the API's 5 s store timeout (counted; its time is the wait for it).
        if (response.status === 503) rounds.get(endpoint.name)!.timeouts++;
        else if (response.status !== 200) throw new Error(`${endpoint.path} answered ${response.status}: ${text}`);
        else if (answer.length === 0) answer = (JSON.parse(text) as { body: { experience: Row[] } }).body.experience;
      }
      times.sort((a, b) => a - b);
      const round = rounds.get(endpoint.name)!;
      const scope = { orgId, from: dayText(firstDay), to: dayText(today), ...endpoint.scope };
      round.p50.push(percentile(times, 50));
      round.p95.push(percentile(times, 95));
      // A query the store refuses (ClickHouse's per-query memory limit) is reported, not fatal: the
      // figures of the others are still worth having.
      const timed = async <T>(into: number[], run: () => Promise<T>): Promise<T | undefined> => {
        const began = performance.now();
        try {
          const result = await run();
          into.push(performance.now() - began);
          return result;
        } catch (error) {
          round.failures.push(`${endpoint.name}: ${(error as Error).message.slice(0, 120)}`);
          return undefined;
        }
      };
      const sums = await timed(round.store, () => store.experienceSums(scope, endpoint.groupBy));
      if (answer.length === 0 && sums) answer = sums.groups.map((g) => ({ ...experienceFigures(g.key, g.sums) }));
      const rows = await timed(round.raw, () => clickhouse.query<Row>(endpoint.raw));
      if (rows && answer.length > 0) {
        const api = answer
          .filter((r) => Number(r.views) > 0)
          .map(figures)
          .sort();
        // A grouping of keys answers one page (the default: the 20 most viewed, ties by key): the
        // baseline's keys ranked the same way, as many as the page holds.
        const ranked =
          endpoint.groupBy === 'day'
            ? rows
            : [...rows]
                .sort((a, b) => Number(b.views) - Number(a.views) || (String(a.key) < String(b.key) ? -1 : 1))
                .slice(0, api.length);
        const raw = ranked.map((r) => figures(fromBaseline(r))).sort();
        if (JSON.stringify(api) !== JSON.stringify(raw))
          throw new Error(
            `${endpoint.name}: the endpoint and the baseline disagree\n  api ${api.slice(0, 3).join(' | ')}\n  raw ${raw.slice(0, 3).join(' | ')}`,
          );
      }
      log(`${endpoint.name}: p95 ${percentile(times, 95).toFixed(1)} ms`);
    }
  }

  console.log(
    `\nExperience benchmark (${analytics}): ${Number(stored?.n).toLocaleString('en')} rows (${totalViews.toLocaleString('en')} views, one in 50 folded twice) over ${DAYS} days, ${VIDEOS} videos`,
  );
  console.log(
    `  load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (${cpus().length} cores); medians of ${runs} run(s)`,
  );
  console.log(
    `  loaded in ${(loadMs / 1000).toFixed(1)} s; ${rolledDays} days rolled up in ${(rollupMs / 1000).toFixed(1)} s; endpoint rounds in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  console.log(
    `\n  ${'endpoint'.padEnd(40)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}  503s  query alone ms  argMax baseline ms`,
  );
  const ms = (values: number[]) => (values.length === 0 ? 'failed' : median(values).toFixed(0));
  for (const e of endpoints) {
    const round = rounds.get(e.name)!;
    const p95 = median(round.p95);
    console.log(
      `  ${e.name.padEnd(40)} ${median(round.p50).toFixed(1).padStart(8)} ${p95.toFixed(1).padStart(8)} ${String(round.timeouts).padStart(5)} ${ms(round.store).padStart(15)} ${ms(round.raw).padStart(19)}${p95 < GOAL_P95_MS ? '' : `   (goal: p95 < ${GOAL_P95_MS} ms)`}`,
    );
  }
  const failures = [...rounds.values()].flatMap((r) => r.failures);
  if (failures.length > 0) console.log(`  queries the store refused:\n    ${failures.join('\n    ')}`);
  console.log(
    `  (${calls} calls per endpoint and run through ${apiUrl}; every answer equal to its baseline's where both answered)`,
  );
} finally {
  await clickhouse.close();
  await db.destroy();
  await stack.stop();
}
