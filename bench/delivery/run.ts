// Delivery benchmark: wrk on loopback against a delivery node (`kino delivery`, real PostgreSQL,
// SeaweedFS, API for the token, ClickHouse server for the segment logs) for a public and a private
// (token-carrying) media segment, and against nginx serving the same file from disk, in the same
// run. Each target gets 3 short runs, interleaved; the medians of requests per second and p99
// latency are printed with the ratios.
//
// Fairness: the delivery node is one Node.js process, so nginx runs one worker; wrk gets one thread.
// Segment logging is on (every request the node answers writes a spool row), as in production.
//
// Usage: npx tsx bench/delivery/run.ts   (installs wrk and nginx with apt when missing)
// Env: BENCH_SECONDS (5), BENCH_CONNECTIONS (32), BENCH_RUNS (3).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startProcess, waitFor, type ManagedProcess } from '@kino/infra/dev';
import { objectKeys } from '@kino/proto/contract';
import { createHlsFixture } from '../../test/support/hls-fixture.ts';
import { signedUrlOf, startDeliveryStack } from '../../test/delivery/harness.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const runs = Number(process.env.BENCH_RUNS ?? 3);

function ensureInstalled(binary: string, pkg: string): string {
  const found = spawnSync('sh', ['-c', `command -v ${binary} || ls /usr/sbin/${binary} 2>/dev/null`], { encoding: 'utf8' }).stdout.trim().split('\n')[0];
  if (found) return found;
  process.stderr.write(`[bench] installing ${pkg} (apt)\n`);
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  execFileSync(sudo[0] ?? 'apt-get', [...(sudo.length ? ['apt-get'] : []), 'install', '-y', '-qq', '--no-install-recommends', pkg], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return ensureInstalled(binary, pkg);
}

interface WrkResult {
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
}

function toMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(value.trim());
  if (!match) throw new Error(`cannot read wrk latency ${value}`);
  const n = Number(match[1]);
  return match[2] === 'us' ? n / 1000 : match[2] === 's' ? n * 1000 : n;
}

function runWrk(wrk: string, url: string, duration: number): WrkResult {
  const out = execFileSync(wrk, ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', url], { encoding: 'utf8' });
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p99 = /^\s+99%\s+(\S+)/m.exec(out);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  if (!rps || !p99) throw new Error(`cannot read wrk output:\n${out}`);
  return { requestsPerSecond: Number(rps[1]), p99Ms: toMs(p99[1]!), non2xx: Number(non2xx?.[1] ?? 0) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function startNginx(nginx: string, dir: string, root: string): Promise<{ url: string; process: ManagedProcess }> {
  const port = await freePort();
  mkdirSync(join(dir, 'nginx', 'logs'), { recursive: true });
  const conf = join(dir, 'nginx', 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
daemon off;
master_process on;
pid ${dir}/nginx/nginx.pid;
error_log ${dir}/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_requests 1000000;
  keepalive_timeout 65;
  open_file_cache max=1000 inactive=60s;
  client_body_temp_path ${dir}/nginx/tmp;
  proxy_temp_path ${dir}/nginx/tmp;
  fastcgi_temp_path ${dir}/nginx/tmp;
  uwsgi_temp_path ${dir}/nginx/tmp;
  scgi_temp_path ${dir}/nginx/tmp;
  types { video/iso.segment m4s; }
  server {
    listen 127.0.0.1:${port};
    root ${root};
    add_header Access-Control-Allow-Origin *;
    add_header Cache-Control "public, max-age=31536000, immutable";
  }
}
`,
  );
  mkdirSync(join(dir, 'nginx', 'tmp'), { recursive: true });
  const proc = startProcess('nginx', nginx, ['-c', conf, '-p', join(dir, 'nginx')], { logFile: join(dir, 'nginx', 'stdout.log') });
  const url = `http://127.0.0.1:${port}`;
  await waitFor('nginx to answer', async () => (await fetch(`${url}/`)).status > 0);
  return { url, process: proc };
}

// Typical ladder rungs: a 720p and a 360p media segment of 6 s at common bitrates.
const cases = [
  { width: 1280, height: 720, kbps: 2500 },
  { width: 640, height: 360, kbps: 600 },
];

function report(what: string, results: Record<string, WrkResult[]>): void {
  const summary = Object.fromEntries(
    Object.entries(results).map(([name, list]) => [
      name,
      { rps: median(list.map((r) => r.requestsPerSecond)), p99: median(list.map((r) => r.p99Ms)) },
    ]),
  ) as Record<'nginx' | 'public' | 'private', { rps: number; p99: number }>;
  const rows = [
    ['target', 'req/s (median)', 'p99 ms (median)', 'req/s vs nginx'],
    ...(['nginx', 'public', 'private'] as const).map((name) => [
      name,
      summary[name].rps.toFixed(0),
      summary[name].p99.toFixed(2),
      (summary[name].rps / summary.nginx.rps).toFixed(2),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  console.log(`\n${what}: wrk -t1 -c${connections}, medians of ${runs} runs of ${seconds} s, loopback`);
  for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
  const publicRatio = summary.public.rps / summary.nginx.rps;
  const privateVsPublic = summary.private.rps / summary.public.rps;
  console.log(`public / nginx: ${publicRatio.toFixed(2)}x (goal >= 0.5x: ${publicRatio >= 0.5 ? 'met' : 'NOT met'})`);
  console.log(`private / public: ${privateVsPublic.toFixed(2)}x (goal within 10%: ${Math.abs(1 - privateVsPublic) <= 0.1 ? 'met' : 'NOT met'})`);
}

async function main(): Promise<void> {
  const wrk = ensureInstalled('wrk', 'wrk');
  const nginx = ensureInstalled('nginx', 'nginx');
  process.stderr.write('[bench] starting PostgreSQL, SeaweedFS, ClickHouse, the API and a delivery node\n');
  const stack = await startDeliveryStack({ analytics: 'clickhouse-server', shipIntervalMs: 1000 });
  let nginxServer: { url: string; process: ManagedProcess } | undefined;
  try {
    for (const { width, height, kbps } of cases) {
      const fixture = (allowPublicAccess: boolean) =>
        createHlsFixture({
          db: stack.db, storage: stack.storage, workDir: stack.services.dir, allowPublicAccess,
          orgId: stack.orgId, envId: stack.envId, seconds: 12, ladder: [{ width, height }], videoBitrateKbps: kbps,
        });
      const pub = await fixture(true);
      const priv = await fixture(false);
      const segment = pub.objects.get(objectKeys.segment(pub.videoId, height, 0))!;
      const root = join(stack.services.dir, `nginx-root-${height}`);
      mkdirSync(root, { recursive: true });
      writeFileSync(join(root, 'seg-00000.m4s'), segment);
      await nginxServer?.process.stop();
      nginxServer = await startNginx(nginx, join(stack.services.dir, `nginx-${height}`), root);

      const token = new URL(await signedUrlOf(stack, priv.videoId, { expiration: '1h' })).searchParams.get('token')!;
      const targets = {
        nginx: `${nginxServer.url}/seg-00000.m4s`,
        public: `${stack.delivery.url}/v1/public/${pub.orgId}/${pub.envId}/${pub.videoId}/video-${height}p/seg-00000.m4s`,
        private: `${stack.delivery.url}/v1/private/${priv.videoId}/video-${height}p/seg-00000.m4s?token=${token}`,
      };
      for (const [name, url] of Object.entries(targets)) {
        const response = await fetch(url);
        if (response.status !== 200) throw new Error(`${name} answered ${response.status}`);
        await response.arrayBuffer();
        runWrk(wrk, url, 1); // warm-up: caches, JIT, connections
      }

      const results: Record<string, WrkResult[]> = { nginx: [], public: [], private: [] };
      for (let run = 1; run <= runs; run++) {
        for (const [name, url] of Object.entries(targets)) {
          const result = runWrk(wrk, url, seconds);
          if (result.non2xx > 0) throw new Error(`${name}: ${result.non2xx} responses were not 2xx`);
          results[name]!.push(result);
          process.stderr.write(`[bench] ${height}p run ${run} ${name}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms.toFixed(2)} ms\n`);
        }
      }
      report(`${height}p segment of ${(segment.length / 1024).toFixed(0)} KiB (${kbps} kb/s, 6 s)`, results);
    }
    const loggedRows = await waitFor('segment rows in ClickHouse', async () => {
      const [row] = await stack.clickhouse.query<{ n: number }>('SELECT count() AS n FROM segment_deliveries');
      return row && row.n > 0 ? row.n : undefined;
    });
    console.log(`segment rows logged to ClickHouse so far: ${loggedRows}`);
  } finally {
    await nginxServer?.process.stop();
    await stack.stop();
  }
}

await main();
