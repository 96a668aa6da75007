// Beacon intake benchmark (issue 58, item 4: ≥ 20,000 events/s on one delivery process, nothing
// lost, spooled while ClickHouse is away). A dev stack without encoding (PostgreSQL, the analytics
// store, the API, one `kino delivery`), public videos as ready rows in PostgreSQL, then a load client
// in this process posting beacon batches of 100 events over keep-alive connections for
// BENCH_SECONDS. Halfway through, the analytics store is stopped; it is started again once the load
// ends, and the run waits until ClickHouse holds exactly the events delivery accepted (counted by
// distinct event id), then prints how long that took.
//
// Baseline, in the same run with the same client and connections: the node's `/health` (a JSON
// answer and nothing else), the most requests a second this node answers on this machine; the
// beacon rate is printed as events/s and as a share of that ceiling.
//
// Usage: npm run bench:beacons -- [--seconds=20] [--connections=16] [--videos=100]
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { ClickHouseHttp, PLAYBACK_EVENTS_TABLE } from '@kino/analytics';
import { newId } from '@kino/infra';
import { openDatabase } from '@kino/database';
import { BEACONS_PATH, type BeaconEvent } from '@kino/proto/contract';
import { waitFor } from '@kino/dev';
import { startTestStack } from '../../test/support/stack.ts';

const { values: flags } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    connections: { type: 'string', default: '16' },
    videos: { type: 'string', default: '100' },
  },
});
const seconds = Number(flags.seconds);
const connections = Number(flags.connections);
const videoCount = Number(flags.videos);
const eventsPerBatch = 100;

/** CPU seconds a process has used (user + system), from /proc: what the node spent on a run. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, the 14th and 15th fields of the whole line, in clock ticks (100 a second).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

/** A view's batch of 100 events, as a player sends them (a view start, then heartbeats and a rendition switch). */
function batchBody(videoId: string): string {
  const events: BeaconEvent[] = [{ type: 'viewstart', at: 0 }];
  for (let i = 1; i < eventsPerBatch - 1; i++)
    events.push(
      i % 10 === 0
        ? { type: 'rendition', at: i * 100, height: 720, bitrate: 2_500_000, codec: 'avc1.64001f' }
        : { type: 'heartbeat', at: i * 100, watchedMs: 100 },
    );
  events.push({ type: 'viewend', at: eventsPerBatch * 100 });
  return JSON.stringify({
    viewId: randomUUID(),
    videoId,
    player: { name: '@kino/player', version: '0.1.0' },
    events,
  });
}

/** Posts (or GETs) as fast as `connections` keep-alive connections go for `ms`; counts 2xx and the rest. */
async function load(
  base: string,
  ms: number,
  next: () => { method: string; path: string; body?: string },
  onHalfway?: () => void,
): Promise<{ ok: number; failed: number; ms: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const url = new URL(base);
  const started = performance.now();
  const end = started + ms;
  let ok = 0;
  let failed = 0;
  let halfway = false;
  const one = (): Promise<void> =>
    new Promise((done) => {
      const { method, path, body } = next();
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method,
          path,
          headers: body ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } : {},
        },
        (res) => {
          if (res.statusCode! >= 200 && res.statusCode! < 300) ok++;
          else failed++;
          res.resume();
          res.on('end', done);
        },
      );
      req.on('error', () => {
        failed++;
        done();
      });
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        await one();
        if (!halfway && onHalfway && performance.now() > started + ms / 2) {
          halfway = true;
          onHalfway();
        }
      }
    }),
  );
  agent.destroy();
  return { ok, failed, ms: performance.now() - started };
}

const stack = await startTestStack({
  nodes: 0,
  without: ['temporal', 'orchestrator'],
  analytics: 'clickhouse-server',
  // The load comes from one address: the per-address limit is for floods, not this.
  env: { delivery: { DELIVERY_BEACONS_PER_SECOND: '1000000' } },
});
const db = await openDatabase(stack.env.DATABASE_URL!);
const clickhouse = new ClickHouseHttp(stack.env.CLICKHOUSE_URL!, 600_000);
try {
  const { orgId, envId, deliveryUrl } = stack.status.devJson as { orgId: string; envId: string; deliveryUrl: string };
  const videoIds = Array.from({ length: videoCount }, () => newId('vid'));
  await db
    .insertInto('videos')
    .values(
      videoIds.map((id, i) => ({
        id,
        org_id: orgId,
        env_id: envId,
        name: `bench ${i}`,
        description: null,
        status: 'ready' as const,
        failure_reason: null,
        storage_path: `uploads/${orgId}/${id}/source.mp4`,
        video_quality: 'standard' as const,
        allow_public_access: true,
        parameters: '{}',
        duration_seconds: 60,
        source_width: 1280,
        source_height: 720,
        source_frame_rate: 30,
        thumbnail_key: null,
        ready_at: new Date(),
        deleted_at: null,
        delete_reason: null,
      })),
    )
    .execute();
  const bodies = videoIds.map((id) => batchBody(id));
  log(`stack up; ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}`);

  const deliveryPid = stack.launcher.process('delivery').child.pid!;
  let cpuBefore = cpuSeconds(deliveryPid);
  const baseline = await load(deliveryUrl, seconds * 1000, () => ({ method: 'GET', path: '/health' }));
  const baselineCpu = cpuSeconds(deliveryPid) - cpuBefore;
  cpuBefore = cpuSeconds(deliveryPid);
  log(`baseline /health: ${baseline.ok} answers, ${baseline.failed} failed`);

  let i = 0;
  let outage: Promise<void> | undefined;
  const beacons = await load(
    deliveryUrl,
    seconds * 1000,
    () => {
      // A new view id per batch: the bodies are reused, so the ids are made unique by the event ids delivery draws.
      const body = bodies[i++ % bodies.length]!;
      return { method: 'POST', path: BEACONS_PATH, body };
    },
    () => {
      log('stopping the analytics store');
      outage = stack.launcher.stopService('analytics', 'fast');
    },
  );
  const beaconsCpu = cpuSeconds(deliveryPid) - cpuBefore;
  await outage;
  const accepted = beacons.ok * eventsPerBatch;
  log(`beacons: ${beacons.ok} batches accepted (${accepted} events), ${beacons.failed} refused or failed`);
  const restarted = performance.now();
  await stack.launcher.startServiceAgain('analytics');
  const stored = async () =>
    Number(
      (
        await clickhouse.query<{ n: number }>(
          `SELECT uniqExact(event_id) AS n FROM ${PLAYBACK_EVENTS_TABLE} WHERE org_id = '${orgId}'`,
        )
      )[0]?.n ?? 0,
    );
  await waitFor('every accepted event in ClickHouse', async () => (await stored()) >= accepted, {
    timeoutMs: 600_000,
    intervalMs: 1000,
  });
  const count = await stored();
  const caughtUpMs = performance.now() - restarted;

  const rate = (n: number, ms: number) => Math.round((n / ms) * 1000).toLocaleString('en');
  console.log(
    `bench:beacons, one delivery process, ${connections} connections, ${seconds} s each, ${cpus().length} cores`,
  );
  console.log(
    `  baseline GET /health:  ${rate(baseline.ok, baseline.ms)} requests/s; the node used ${baselineCpu.toFixed(1)} CPU s ` +
      `(${((baselineCpu / baseline.ok) * 1e6).toFixed(0)} µs a request)`,
  );
  console.log(
    `  POST /v1/beacons:      ${rate(beacons.ok, beacons.ms)} requests/s = ${rate(accepted, beacons.ms)} events/s ` +
      `(${Math.round((beacons.ok / beacons.ms / (baseline.ok / baseline.ms)) * 100)} % of the baseline's requests/s), ${beacons.failed} not accepted`,
  );
  console.log(
    `  the node used ${beaconsCpu.toFixed(1)} CPU s: ${((beaconsCpu / beacons.ok) * 1e6).toFixed(0)} µs a batch, ` +
      `${((beaconsCpu / accepted) * 1e6).toFixed(1)} µs an event (one core: ${rate(accepted, beaconsCpu * 1000)} events/s)`,
  );
  console.log(
    `  ClickHouse stopped halfway and started again: ${count.toLocaleString('en')} distinct events stored of ` +
      `${accepted.toLocaleString('en')} accepted (${count === accepted ? 'exact' : 'MISMATCH'}), all in ${(caughtUpMs / 1000).toFixed(1)} s after the restart`,
  );
  console.log(`  load average at the end: ${loadavg()[0]!.toFixed(1)}`);
  if (count !== accepted) process.exitCode = 1;
} finally {
  await clickhouse.close();
  await db.destroy();
  await stack.stop();
}
