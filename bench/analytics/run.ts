// Analytics benchmark: a large synthetic delivery history (default 100 million segment rows over
// 365 days, 3 environments, 2,000 videos, five heights), then every analytics endpoint called
// through the real API (`kino api` of a dev stack) BENCH_CALLS times, p50 and p95 printed beside a
// plain GROUP BY over the raw rows answering the same question in the same run; and the ingest
// rate of the delivery segment-log path (the SegmentLog spool and shipper delivery runs).
//
// Loading: most rows are generated inside ClickHouse (INSERT ... SELECT FROM numbers(), in chunks),
// the rest go through SegmentLog.record() + flush(), as a delivery node writes and ships them. The
// rollup is then built by the API's own refresher from the marks (the bulk rows are marked like a
// shipped batch would be), and its catch-up time is printed too.
//
// With --runs=N the ingest (N × --shipped rows) and the endpoint rounds are repeated N times and
// the medians printed (the history is loaded once). --ingest-only measures the ingest runs alone,
// into an empty table (no bulk history, rollup wait nor endpoint rounds): a minute to compare two
// versions of the delivery path.
//
// Usage: npm run bench:analytics -- [--rows=100000000] [--shipped=1000000] [--calls=200] [--runs=1]
//        [--analytics=clickhouse-server|chdb] [--ingest-only]
import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger, newId } from '@kino/infra';
import {
  clickHouseString,
  ClickHouseHttp,
  latestRows,
  SEGMENT_DAILY_TABLE,
  SEGMENT_DELIVERIES_TABLE,
  SEGMENT_HEIGHT_DAILY_TABLE,
  SEGMENT_VIDEO_MONTHLY_TABLE,
} from '@kino/analytics';
import { waitFor } from '@kino/dev';
import { createEnvironment, deleteRateLimitCountersBefore } from '@kino/database/repositories';
import { openDatabase } from '@kino/database';
import { SegmentLog } from '../../delivery/src/segment-log.ts';
import { startTestStack } from '../../test/support/stack.ts';

const { values: flags } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000000' },
    shipped: { type: 'string', default: '1000000' },
    calls: { type: 'string', default: '200' },
    runs: { type: 'string', default: '1' },
    analytics: { type: 'string', default: 'clickhouse-server' },
    'ingest-only': { type: 'boolean', default: false },
  },
});
const totalRows = Number(flags.rows);
const shippedRows = Math.min(Number(flags.shipped), totalRows);
const runs0 = Math.max(1, Number(flags.runs));
const ingestOnly = flags['ingest-only'];
const bulkRows = ingestOnly ? 0 : totalRows - shippedRows * runs0;
const calls = Number(flags.calls);
const runs = runs0;
const analytics = flags.analytics as 'clickhouse-server' | 'chdb';
const VIDEOS = 2_000;
const HEIGHTS = [240, 360, 480, 720, 1080];
const DAYS = 365;
const BULK_CHUNK = 10_000_000;

const log = (text: string) => process.stderr.write(`[bench] ${text}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const stack = await startTestStack({ nodes: 0, without: ['temporal', 'orchestrator', 'delivery'], analytics });
const db = await openDatabase(stack.env.DATABASE_URL!);
const clickhouse = new ClickHouseHttp(stack.env.CLICKHOUSE_URL!, 1_800_000);
const { apiUrl, apiKey, orgId, envId } = stack.status.devJson;
try {
  // Tenancy and videos in PostgreSQL: 3 environments, 2,000 videos spread over them.
  const envIds = [
    envId,
    (await createEnvironment(db, { orgId, name: 'staging' })).id,
    (await createEnvironment(db, { orgId, name: 'dev' })).id,
  ];
  const videoIds = Array.from({ length: VIDEOS }, () => newId('vid'));
  const qualities = ['standard', 'high', 'ultra'] as const;
  for (let i = 0; i < VIDEOS; i += 500) {
    await db
      .insertInto('videos')
      .values(
        videoIds.slice(i, i + 500).map((id, j) => ({
          id,
          org_id: orgId,
          env_id: envIds[(i + j) % 3]!,
          name: `bench ${i + j}`,
          description: null,
          status: 'ready' as const,
          failure_reason: null,
          storage_path: `uploads/${orgId}/${id}/source.mp4`,
          video_quality: qualities[(i + j) % 3]!,
          allow_public_access: true,
          parameters: '{}',
          duration_seconds: 30 + ((i + j) % 600),
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
  }

  // Bulk rows, generated inside ClickHouse over the 365 days before today. Video v is in
  // environment v % 3, as in PostgreSQL; heights cycle through the five.
  const videoArray = `[${videoIds.map(clickHouseString).join(',')}]`;
  const envArray = `[${envIds.map(clickHouseString).join(',')}]`;
  const heightArray = `[${HEIGHTS.join(',')}]`;
  const start = Math.floor(Date.now() / 86_400_000) * 86_400 - DAYS * 86_400;
  let t0 = Date.now();
  for (let offset = 0; offset < bulkRows; offset += BULK_CHUNK) {
    const count = Math.min(BULK_CHUNK, bulkRows - offset);
    await clickhouse.exec(
      `INSERT INTO ${SEGMENT_DELIVERIES_TABLE} (row_id, served_at, org_id, env_id, video_id, rendition_height, segment_index, bytes, access, node_id)
       SELECT concat('bulk-', toString(n)), toDateTime(${start} + intDiv(n * ${DAYS * 86_400}, ${bulkRows})), ${clickHouseString(orgId)},
              arrayElement(${envArray}, (v % 3) + 1), arrayElement(${videoArray}, v + 1), arrayElement(${heightArray}, (intHash32(n) % 5) + 1),
              toUInt32(n % 100), 500000 + (n % 1000), 'public', 'bulk'
       FROM (SELECT number + ${offset} AS n, intHash64(number + ${offset}) % ${VIDEOS} AS v FROM numbers(${count}))`,
    );
    log(`bulk ${offset + count}/${bulkRows} rows`);
  }
  const bulkMs = Date.now() - t0;

  // The delivery path: SegmentLog writes the spool and ships it (today's rows), once per run.
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = sorted.length / 2;
    return Number.isInteger(middle) ? (sorted[middle - 1]! + sorted[middle]!) / 2 : sorted[Math.floor(middle)]!;
  };
  // CPU seconds of this process (recording and shipping) and of the analytics store (parsing and
  // merging): steadier than wall time on a loaded machine, where the scheduler decides the rest.
  const storePid = stack.launcher.process('analytics').child.pid!;
  const storeCpuMs = () => {
    const fields = readFileSync(`/proc/${storePid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in ticks of 10 ms
  };
  const ingest: { recordedMs: number; ingestMs: number; nodeCpuMs: number; storeCpuMs: number }[] = [];
  for (let run = 0; run < runs; run++) {
    const segmentLog = SegmentLog.open({
      dir: mkdtempSync(join(tmpdir(), 'kino-bench-spool-')),
      clickHouse: clickhouse,
      nodeId: 'bench-node',
      shipIntervalMs: 1_000,
      logger: createLogger('bench-segment-log', 'warn'),
    });
    t0 = Date.now();
    const [nodeCpu0, storeCpu0] = [process.cpuUsage(), storeCpuMs()];
    // Recording yields to the event loop every 100 rows, as a node serving about a hundred
    // connections does between turns (the rows of one turn go in one write(2)), so the shipper's
    // timer runs while rows keep arriving.
    for (let n = 0; n < shippedRows; n++) {
      const v = n % VIDEOS;
      void segmentLog.record({
        orgId,
        envId: envIds[v % 3]!,
        videoId: videoIds[v]!,
        renditionHeight: HEIGHTS[n % 5]!,
        segmentIndex: n % 100,
        bytes: 500_000,
        access: 'public',
      });
      if (n % 100 === 99) await new Promise(setImmediate);
    }
    const recordedMs = Date.now() - t0;
    await segmentLog.flush();
    const nodeCpu = process.cpuUsage(nodeCpu0);
    ingest.push({
      recordedMs,
      ingestMs: Date.now() - t0,
      nodeCpuMs: (nodeCpu.user + nodeCpu.system) / 1000,
      storeCpuMs: storeCpuMs() - storeCpu0,
    });
    await segmentLog.close();
    log(`ingest run ${run + 1}: ${shippedRows} rows in ${seconds(ingest.at(-1)!.ingestMs)}`);
  }
  const recordedMs = median(ingest.map((i) => i.recordedMs));
  const ingestMs = median(ingest.map((i) => i.ingestMs));
  const rate = (rows: number, ms: number) => Math.round(rows / (ms / 1000)).toLocaleString('en');
  const ingestLine = () =>
    `  delivery segment-log path, per run: ${shippedRows.toLocaleString('en')} rows recorded in ${seconds(recordedMs)}, recorded + shipped in ${seconds(ingestMs)}: ${rate(shippedRows, ingestMs)} rows/s` +
    ` (runs: ${ingest.map((i) => rate(shippedRows, i.ingestMs)).join(', ')});\n    CPU per run, medians: node ${seconds(median(ingest.map((i) => i.nodeCpuMs)))},` +
    ` analytics store ${seconds(median(ingest.map((i) => i.storeCpuMs)))}`;
  if (ingestOnly) {
    const [stored] = await clickhouse.query<{ n: number }>(`SELECT count() AS n FROM ${SEGMENT_DELIVERIES_TABLE}`);
    if (Number(stored?.n) !== shippedRows * runs)
      throw new Error(`${Number(stored?.n)} rows stored, ${shippedRows * runs} shipped`);
    console.log(`\nAnalytics ingest benchmark (${analytics}): ${runs} run(s) into an empty table, every row stored`);
    console.log(
      `  load average at the end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} (${cpus().length} cores); medians of ${runs} run(s)`,
    );
    console.log(ingestLine());
  } else {
    // Marked like a shipped batch marks its days: the API's refresher recomputes them. After the
    // ingest runs, so that they measure the delivery path beside a refresher in its steady state.
    await clickhouse.exec(
      `INSERT INTO segment_rollup_marks (org_id, day, marked_at)
       SELECT DISTINCT org_id, toDate(served_at), now() FROM ${SEGMENT_DELIVERIES_TABLE} WHERE node_id = 'bulk'`,
    );

    // The rollup catches up (the refresher of `kino api`, every 10 s).
    t0 = Date.now();
    // The bench's rows are never replayed (unique row ids), so a plain count is exact here.
    const [raw] = await clickhouse.query<{ n: number }>(`SELECT count() AS n FROM ${SEGMENT_DELIVERIES_TABLE}`);
    // Every rollup the endpoints read holds every row (the per-video ones are derived in the same pass).
    const rolledUp = async (table: string, key: string[]) => {
      const [rolled] = await clickhouse.query<{ n: number }>(
        `SELECT sum(seg) AS n FROM (${latestRows(table, key, {}, '1')})`,
      );
      return Number(rolled?.n) === Number(raw?.n);
    };
    await waitFor(
      'the rollups to hold every row',
      async () =>
        (await rolledUp(SEGMENT_HEIGHT_DAILY_TABLE, ['org_id', 'day', 'env_id', 'rendition_height'])) &&
        (await rolledUp(SEGMENT_VIDEO_MONTHLY_TABLE, ['org_id', 'month', 'env_id', 'rendition_height', 'video_id'])),
      { timeoutMs: 3 * 3600_000, intervalMs: 2_000 },
    );
    const rollupMs = Date.now() - t0;
    const rollupCounts: string[] = [];
    const keys: Record<string, string[]> = {
      [SEGMENT_DAILY_TABLE]: ['org_id', 'day', 'env_id', 'video_id', 'rendition_height'],
      [SEGMENT_HEIGHT_DAILY_TABLE]: ['org_id', 'day', 'env_id', 'rendition_height'],
      [SEGMENT_VIDEO_MONTHLY_TABLE]: ['org_id', 'month', 'env_id', 'rendition_height', 'video_id'],
    };
    for (const [table, key] of Object.entries(keys)) {
      const [rows] = await clickhouse.query<{ n: number }>(
        `SELECT count() AS n FROM (${latestRows(table, key, {}, '1')})`,
      );
      rollupCounts.push(`${table} ${Number(rows?.n).toLocaleString('en')}`);
    }

    // Endpoints through the API, each beside the plain GROUP BY over raw rows answering it.
    const today = new Date().toISOString().slice(0, 10);
    const yearAgo = new Date(Date.now() - 364 * 86_400_000).toISOString().slice(0, 10);
    const rangeStart = new Date(Date.now() - 250 * 86_400_000).toISOString().slice(0, 10);
    const rangeEnd = new Date(Date.now() - 50 * 86_400_000).toISOString().slice(0, 10);
    const org = clickHouseString(orgId);
    // Each endpoint beside a plain GROUP BY over the raw rows answering the same question (no FINAL
    // nor distinct row ids: the bench replays no batch, so each row is there once); the bench
    // fails unless both give the same numbers (`answer` reads them from the endpoint's body).
    type Body = Record<string, Record<string, unknown>[]>;
    const text = (timestamp: unknown) => String(timestamp).replace('T', ' ').replace('Z', '');
    const inRange = (from: string, to?: string) =>
      `toDate(served_at) >= toDate('${from}')${to ? ` AND toDate(served_at) <= toDate('${to}')` : ''}`;
    const dailyRaw = (env?: string) =>
      `SELECT toString(toDate(served_at)) AS d, count(), uniqExact(video_id), countIf(rendition_height >= 1080), countIf(rendition_height > 480 AND rendition_height < 1080), countIf(rendition_height <= 480) FROM ${SEGMENT_DELIVERIES_TABLE} WHERE org_id = ${org}${env ? ` AND env_id = ${clickHouseString(env)}` : ''} AND ${inRange(yearAgo)} GROUP BY d`;
    const dailyAnswer = (body: Body) =>
      body
        .dailyUsage!.filter((d) => Number(d.segmentsServed) > 0)
        .map((d) => [
          String(d.deliveryDate).slice(0, 10),
          d.segmentsServed,
          d.uniqueVideosServed,
          d.hdSegments,
          d.sdSegments,
          d.ldSegments,
        ]);
    const distributionRaw = (where: string) =>
      `SELECT rendition_height, count(), uniqExact(video_id), uniqExact(toDate(served_at)), toString(min(served_at)), toString(max(served_at)) FROM ${SEGMENT_DELIVERIES_TABLE} WHERE org_id = ${org}${where} GROUP BY rendition_height`;
    const distributionAnswer = (body: Body) =>
      body.distribution!.map((d) => [
        d.resolutionHeight,
        d.segmentsServed,
        d.uniqueVideos,
        d.daysActive,
        text(d.firstServed),
        text(d.lastServed),
      ]);
    const endpoints: { name: string; path: string; raw?: string; answer?: (body: Body) => unknown[][] }[] = [
      {
        name: 'usage (30 days)',
        path: `/${orgId}/analytics/usage`,
        raw: `SELECT env_id, count(), countIf(toDate(served_at) >= today() - 29), toString(max(served_at)) FROM ${SEGMENT_DELIVERIES_TABLE} WHERE org_id = ${org} GROUP BY env_id`,
        answer: (body) =>
          body
            .usage!.filter((u) => Number(u.totalSegmentsServed) > 0)
            .map((u) => [u.envId, u.totalSegmentsServed, u.segmentsServedInPeriod, text(u.lastSegmentServed)]),
      },
      {
        name: 'daily (365 days)',
        path: `/${orgId}/analytics/daily?startDate=${yearAgo}&endDate=${today}`,
        raw: dailyRaw(),
        answer: dailyAnswer,
      },
      {
        name: 'daily, one environment',
        path: `/${orgId}/environments/${envIds[1]}/analytics/daily?startDate=${yearAgo}&endDate=${today}`,
        raw: dailyRaw(envIds[1]),
        answer: dailyAnswer,
      },
      { name: 'storage', path: `/${orgId}/analytics/storage` },
      {
        name: 'video resolution (all time)',
        path: `/${orgId}/videos/${videoIds[7]}/analytics/resolution`,
        raw: `SELECT rendition_height, count(), uniqExact(toDate(served_at)), toString(min(served_at)), toString(max(served_at)) FROM ${SEGMENT_DELIVERIES_TABLE} WHERE org_id = ${org} AND video_id = ${clickHouseString(videoIds[7]!)} GROUP BY rendition_height`,
        answer: (body) =>
          body.resolutions!.map((r) => [
            r.resolutionHeight,
            r.timesServed,
            r.daysServed,
            text(r.firstServed),
            text(r.lastServed),
          ]),
      },
      {
        name: 'resolution distribution (all time)',
        path: `/${orgId}/analytics/resolution-distribution`,
        raw: distributionRaw(''),
        answer: distributionAnswer,
      },
      {
        // Days at both ends outside whole months: the distinct-video count reads those days per video.
        name: 'resolution distribution (200 days)',
        path: `/${orgId}/analytics/resolution-distribution?startDate=${rangeStart}&endDate=${rangeEnd}`,
        raw: distributionRaw(` AND ${inRange(rangeStart, rangeEnd)}`),
        answer: distributionAnswer,
      },
    ];
    const canonical = (rows: unknown[][]) =>
      rows
        .map((row) => JSON.stringify(row.map((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v))))
        .sort();
    // Per run: every endpoint `calls` times, then its raw GROUP BY once; medians over the runs.
    const rounds = new Map<string, { p50: number[]; p95: number[]; raw: number[] }>(
      endpoints.map((e) => [e.name, { p50: [], p95: [], raw: [] }]),
    );
    for (let run = 0; run < runs; run++) {
      for (const endpoint of endpoints) {
        // The analytics limit is 500 an hour: the bench starts each endpoint with fresh counters.
        await deleteRateLimitCountersBefore(db, new Date(Date.now() + 86_400_000));
        const times: number[] = [];
        let body: Body = {};
        for (let i = 0; i < calls; i++) {
          const began = performance.now();
          const response = await fetch(`${apiUrl}${endpoint.path}`, { headers: { 'X-Api-Key': apiKey } });
          const answer = await response.text();
          if (response.status !== 200) throw new Error(`${endpoint.path} answered ${response.status}: ${answer}`);
          times.push(performance.now() - began);
          if (i === 0) body = (JSON.parse(answer) as { body: Body }).body;
        }
        times.sort((a, b) => a - b);
        const round = rounds.get(endpoint.name)!;
        round.p50.push(percentile(times, 50));
        round.p95.push(percentile(times, 95));
        if (endpoint.raw && endpoint.answer) {
          const began = performance.now();
          const rows = await clickhouse.query<Record<string, unknown>>(endpoint.raw);
          round.raw.push(performance.now() - began);
          const [api, raw] = [canonical(endpoint.answer(body)), canonical(rows.map((r) => Object.values(r)))];
          if (JSON.stringify(api) !== JSON.stringify(raw)) {
            throw new Error(
              `${endpoint.name}: the endpoint and the raw GROUP BY disagree\n  api ${api.slice(0, 5).join(' ')}\n  raw ${raw.slice(0, 5).join(' ')}`,
            );
          }
        }
      }
      log(`endpoint round ${run + 1} done`);
    }
    const results = endpoints.map((e) => {
      const round = rounds.get(e.name)!;
      return {
        name: e.name,
        p50: median(round.p50),
        p95: median(round.p95),
        raw: round.raw.length ? median(round.raw) : undefined,
      };
    });

    console.log(
      `\nAnalytics benchmark (${analytics}): ${Number(raw?.n).toLocaleString('en')} segment rows; rollup rows: ${rollupCounts.join(', ')}`,
    );
    console.log(
      `  load average at the end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} (${cpus().length} cores); medians of ${runs} run(s)`,
    );
    console.log(
      `  bulk load (INSERT ... SELECT numbers()): ${bulkRows.toLocaleString('en')} rows in ${seconds(bulkMs)} (${rate(bulkRows, bulkMs)} rows/s)`,
    );
    console.log(ingestLine());
    console.log(`  rollup caught up (API refresher) in ${seconds(rollupMs)}`);
    console.log(`\n  ${'endpoint'.padEnd(36)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}   raw GROUP BY ms`);
    for (const r of results) {
      console.log(
        `  ${r.name.padEnd(36)} ${r.p50.toFixed(1).padStart(8)} ${r.p95.toFixed(1).padStart(8)}   ${r.raw === undefined ? '-' : r.raw.toFixed(0)}`,
      );
    }
    console.log(`  (${calls} calls per endpoint and run through ${apiUrl}; every answer equal to its raw GROUP BY's)`);
  }
} finally {
  await clickhouse.close();
  await db.destroy();
  await stack.stop();
}
