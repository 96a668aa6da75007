// Delivery benchmark: a load client on loopback (bench/delivery/loadgen, or wrk) against a delivery
// node (`kino delivery`, real PostgreSQL,
// SeaweedFS, API for the token, ClickHouse server for the segment logs), public and private
// (token-carrying) media segments, against nginx serving the same files from disk, in the same run,
// and against nginx with `proxy_cache` in front of the same S3 with a cache of the same size: the
// peer a self-hoster would put in front of storage, and the one to compare misses with (the
// from-disk nginx never misses).
//
// The proxy_cache peer is tuned as nginx's documentation advises for a caching proxy:
// `proxy_cache_lock on` (one upstream read per object however many ask), `sendfile on` for what it
// serves from its cache, keep-alive connections to the upstream (`keepalive`, HTTP/1.1 without
// Connection: close), `proxy_buffering on` with large buffers, `use_temp_path=off` (the response is
// written where it will be cached). S3 signatures: the client asks nginx for presigned GET URLs
// (4 hours) and nginx passes them to S3 unchanged, with S3's own Host, on a miss; the cache key is the
// path alone, so every request for an object shares one cache entry. S3 checks a signature on every
// miss, as it does for Kino's GETs; nothing is made publicly readable.
//
// The baseline is the strongest nginx we know for large static files: the configurations nginx's
// documentation suggests (sendfile with and without tcp_nopush, sendfile_max_chunk, sendfile off
// with large output_buffers, aio threads with directio) are each tried on a hot segment at every
// concurrency, BENCH_ROUNDS times, and the best median at a concurrency serves that concurrency's
// cases; the run prints which. nginx gets as many workers as Kino has delivery processes (one).
//
// The work is meant to be realistic: several videos of several 720p segments (about 2 MB each),
// with the delivery node's caches set smaller than that working set. Three kinds of work: hot (one
// segment, always cached), popular (requests spread over the first five segments of each video by
// popularity, a Zipf law as viewers' are, so most hit the cache and some miss and go to storage) and
// cold (every segment of every video in turn, so LRU misses every time). The cold cycle is long
// (90 segments, 3 s video each): with a short one (15) a segment came round again while its last
// miss was still being read, and joined it (single flight), so only 11 % of the delivery node's
// "cold" lookups read storage. Each run prints the node's own share of lookups that read storage
// (its metrics) and nginx's MISS share (its log). Each runs at several concurrencies (8, 32, 128 connections),
// public and private, and prints req/s, p50 and p99 for Kino and nginx. Segment logging is on
// (every request the node answers writes a spool row).
//
// Paired: each case runs BENCH_ROUNDS times, nginx and Kino alternating which goes first, and the
// result is the median of the per-round ratios (Kino / nginx), so a loaded moment hurts both sides
// of a pair rather than one.
//
// The client: loadgen (Go, in loadgen/), which works as wrk does but reads 256 KiB per system call.
// wrk reads 8 KiB at a time and asks FIONREAD before each read: about 550 system calls a 2 MB
// segment, which saturated wrk's core at 32 and 128 connections while neither server's was, so those
// cases measured wrk. BENCH_CLIENT=wrk runs wrk instead.
//
// Pinned: the server under test (nginx's worker, or the delivery node with all its threads) has
// core 1 to itself; the client and everything else (this process, PostgreSQL, SeaweedFS, the API,
// ClickHouse taking the segment logs) run on core 0, as a delivery node's database and ClickHouse
// would run on other hosts. Unpinned, runs moved by up to 40 % between them, and ClickHouse's work
// on Kino's rows could land on the core Kino was serving from.
// Each case also prints how busy each core was (/proc/stat around every run, median of the
// rounds): where the client's core is saturated and the server's is not, the case measures what one
// client core can receive, not what the server can send. And each side's own CPU time per request
// and per GB of body served (utime + stime from /proc/<pid>/stat around the run, for every process of
// the server: nginx's master, workers and cache manager; the delivery node with all its threads),
// which a saturated client or a loaded machine moves much less than requests per second.
//
// Usage: npm run bench:delivery   (installs nginx, and Go or wrk, with apt when missing)
// Env: BENCH_CLIENT (loadgen; or wrk), BENCH_SECONDS (4), BENCH_ROUNDS (3), BENCH_CONNECTIONS (8,32,128), BENCH_VIDEOS (3 public + 3 private),
//      BENCH_CACHE_MB (16: the delivery node's memory and disk cache each),
//      BENCH_WORKS (hot,popular,cold: which kinds of work run),
//      BENCH_CPU_PROFILE_DIR (unset: where the delivery node writes a V8 CPU profile when it stops).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startProcess, waitFor, type ManagedProcess } from '@kino/dev';
import { objectKeys } from '@kino/proto/contract';
import { ensureInstalled } from '../apt.ts';
import { createHlsFixture, type HlsFixture } from '../../test/support/hls-fixture.ts';
import { signedUrlOf, startDeliveryStack } from '../../test/delivery/harness.ts';
import { Scrape } from '../../test/support/metrics.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const concurrencies = (process.env.BENCH_CONNECTIONS ?? '8,32,128').split(',').map(Number);
const videosPerKind = Number(process.env.BENCH_VIDEOS ?? 3);
const cacheMb = Number(process.env.BENCH_CACHE_MB ?? 16);
const cpuProfileDir = process.env.BENCH_CPU_PROFILE_DIR;
const workKinds = (process.env.BENCH_WORKS ?? 'hot,popular,cold').split(',');
/** The server under test's core, and everyone else's, the client included (taskset core lists); unpinned on a single core. */
const pinned = cpus().length >= 2;
const stackCore = '0';
const serverCore = '1';
/** 180 s videos: thirty 6 s segments each (the popular work asks for the first five). */
const videoSeconds = 180;
const popularSegmentsPerVideo = 5;

interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The slowest response: where a burst of new connections waits to be accepted, it shows here first. */
  maxMs: number;
  non2xx: number;
  /** Requests the client gave up on after its timeout (10 s): they count in no latency figure. */
  timeouts: number;
  /** Body bytes per response (loadgen; NaN with wrk): the hot cases check it against the segment's size. */
  bodyBytesPerRequest: number;
  /** Requests answered and body bytes received in the run (loadgen; NaN with wrk). */
  requests: number;
  bodyBytes: number;
  /** The server's own CPU time (all its processes) per request, and per GB of body served (NaN with wrk). */
  cpuMsPerRequest: number;
  cpuSecondsPerGb: number;
  /** Storage's (SeaweedFS's) CPU time per request: what a side's misses cost the S3 server they read. */
  storageCpuMsPerRequest: number;
  /** Busy share (0-1) of the server's core and of the client's during the run (NaN unpinned): which side bounds it. */
  serverCoreBusy: number;
  clientCoreBusy: number;
}

/** Busy and total time of each core so far (/proc/stat, in clock ticks); idle and iowait are not busy. */
function coreTimes(): Map<string, { busy: number; total: number }> {
  const times = new Map<string, { busy: number; total: number }>();
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const match = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const ticks = match[2]!.trim().split(/\s+/).map(Number);
    const total = ticks.reduce((sum, n) => sum + n, 0);
    times.set(match[1]!, { busy: total - ticks[3]! - ticks[4]!, total });
  }
  return times;
}

/** CPU seconds (user + system) used so far by these processes and the children they wait(2)ed for (/proc/<pid>/stat). */
function processCpuSeconds(pids: number[]): number {
  const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  let ticks = 0;
  for (const pid of pids) {
    try {
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone: a worker that exited between the listing and the read
    }
  }
  return ticks / ticksPerSecond;
}

/** A process and its children (nginx's master and its workers, cache manager and loader). */
function processTree(pid: number): number[] {
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')
    .filter(Boolean)
    .map(Number);
  return [pid, ...children.flatMap(processTree)];
}

function busyShare(before: ReturnType<typeof coreTimes>, after: ReturnType<typeof coreTimes>, core: string): number {
  const [b, a] = [before.get(core), after.get(core)];
  return pinned && a && b && a.total > b.total ? (a.busy - b.busy) / (a.total - b.total) : Number.NaN;
}

function toMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(value.trim());
  if (!match) throw new Error(`cannot read wrk latency ${value}`);
  const n = Number(match[1]);
  return match[2] === 'us' ? n / 1000 : match[2] === 's' ? n * 1000 : n;
}

/**
 * The load client: `loadgen` (default; bench/delivery/loadgen, built with Go) or `wrk`. Both keep
 * `connections` keep-alive connections busy on one thread and time each request from its write to
 * its last byte. wrk reads 8 KiB per system call and asks FIONREAD before each read: on 2 MB segments
 * that saturates its core first (about 1M system calls a second at 1,700 segments a second), so the
 * cases measure wrk. loadgen reads 256 KiB at a time.
 */
const client = process.env.BENCH_CLIENT ?? 'loadgen';

/** Builds bench/delivery/loadgen (Go's standard library only; apt's golang-go when Go is missing). */
function buildLoadgen(dir: string): string {
  const go = ensureInstalled('go', 'golang-go');
  const binary = join(dir, 'loadgen');
  execFileSync(go, ['build', '-o', binary, '.'], { cwd: join(import.meta.dirname, 'loadgen'), stdio: 'inherit' });
  return binary;
}

interface Load {
  client: 'wrk' | 'loadgen';
  binary: string;
}

/**
 * One timed run against `origin`; with several paths, requests take them in turn (the working-set
 * cases). `serverPid`: the server's process, whose CPU time (its children's included) is measured.
 */
function runLoad(
  load: Load,
  origin: string,
  paths: string[],
  connections: number,
  duration: number,
  scriptDir: string,
  serverPid?: number,
  storagePid?: number,
): LoadResult {
  // The client runs where this process does (core 0 when pinned: main() pins it, children inherit it).
  const pids = serverPid === undefined ? [] : processTree(serverPid);
  const storagePids = storagePid === undefined ? [] : processTree(storagePid);
  const cpuBefore = processCpuSeconds(pids);
  const storageCpuBefore = processCpuSeconds(storagePids);
  const before = coreTimes();
  const result =
    load.client === 'wrk'
      ? runWrk(load.binary, origin, paths, connections, duration, scriptDir)
      : runLoadgen(load.binary, origin, paths, connections, duration, scriptDir);
  const after = coreTimes();
  const cpu = processCpuSeconds(pids) - cpuBefore;
  const storageCpu = processCpuSeconds(storagePids) - storageCpuBefore;
  return {
    storageCpuMsPerRequest:
      storagePids.length && result.requests > 0 ? (storageCpu * 1000) / result.requests : Number.NaN,
    ...result,
    cpuMsPerRequest: pids.length && result.requests > 0 ? (cpu * 1000) / result.requests : Number.NaN,
    cpuSecondsPerGb: pids.length && result.bodyBytes > 0 ? cpu / (result.bodyBytes / 1e9) : Number.NaN,
    serverCoreBusy: busyShare(before, after, serverCore),
    clientCoreBusy: busyShare(before, after, stackCore),
  };
}

type LoadFigures = Omit<
  LoadResult,
  'serverCoreBusy' | 'clientCoreBusy' | 'cpuMsPerRequest' | 'cpuSecondsPerGb' | 'storageCpuMsPerRequest'
>;

function runLoadgen(
  loadgen: string,
  origin: string,
  paths: string[],
  connections: number,
  duration: number,
  scriptDir: string,
): LoadFigures {
  const args = [`-c`, String(connections), `-d`, `${duration}s`, '-timeout', '10s'];
  if (paths.length > 1) {
    const list = join(scriptDir, `paths-${Math.random().toString(36).slice(2)}.txt`);
    writeFileSync(list, `${paths.join('\n')}\n`);
    args.push('-paths', list);
  }
  // GOMAXPROCS=1: one thread, as `wrk -t1` has.
  const out = execFileSync(loadgen, [...args, `${origin}${paths[0]}`], {
    encoding: 'utf8',
    env: { ...process.env, GOMAXPROCS: '1' },
  });
  const figures = JSON.parse(out) as {
    requestsPerSecond: number;
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    non2xx: number;
    timeouts: number;
    requests: number;
    bodyBytes: number;
  };
  return { ...figures, bodyBytesPerRequest: figures.bodyBytes / figures.requests };
}

/** A wrk run; with several paths, a Lua script cycles through them. */
function runWrk(
  wrk: string,
  origin: string,
  paths: string[],
  connections: number,
  duration: number,
  scriptDir: string,
): LoadFigures {
  // A 10 s timeout (wrk's default is 2 s): on a loaded machine slow answers stay in the latencies.
  const args = ['-t1', `-c${connections}`, `-d${duration}s`, '--timeout', '10s', '--latency'];
  if (paths.length > 1) {
    const script = join(scriptDir, `paths-${Math.random().toString(36).slice(2)}.lua`);
    writeFileSync(
      script,
      `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}\nlocal i = 0\nrequest = function()\n  i = i + 1\n  return wrk.format("GET", paths[(i % #paths) + 1])\nend\n`,
    );
    args.push('-s', script);
  }
  const out = execFileSync(wrk, [...args, `${origin}${paths[0]}`], { encoding: 'utf8' });
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p50 = /^\s+50%\s+(\S+)/m.exec(out);
  const p99 = /^\s+99%\s+(\S+)/m.exec(out);
  const max = /^\s+Latency\s+\S+\s+\S+\s+(\S+)/m.exec(out);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  const timeouts = /Socket errors:.*timeout (\d+)/.exec(out);
  if (!rps || !p50 || !p99 || !max) throw new Error(`cannot read wrk output:\n${out}`);
  return {
    requestsPerSecond: Number(rps[1]),
    p50Ms: toMs(p50[1]!),
    p99Ms: toMs(p99[1]!),
    maxMs: toMs(max[1]!),
    non2xx: Number(non2xx?.[1] ?? 0),
    timeouts: Number(timeouts?.[1] ?? 0),
    bodyBytesPerRequest: Number.NaN,
    requests: Number.NaN,
    bodyBytes: Number.NaN,
  };
}

/** nginx configurations for large static files, after its documentation (ngx_http_core_module). */
const nginxVariants: Record<string, string> = {
  'sendfile + tcp_nopush': 'sendfile on; tcp_nopush on;',
  'sendfile, 512k chunks': 'sendfile on; tcp_nopush off; sendfile_max_chunk 512k;',
  'no sendfile, output_buffers 4 1m': 'sendfile off; output_buffers 4 1m;',
  'aio threads + directio 4m': 'sendfile off; aio threads; directio 4m; output_buffers 2 1m;',
};

async function startNginx(
  nginx: string,
  dir: string,
  root: string,
  fileIo: string,
): Promise<{ url: string; process: ManagedProcess }> {
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
  ${fileIo}
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
  // taskset execs nginx in place: its master and the worker it forks run on the server's core.
  const command = pinned ? ['taskset', '-c', serverCore, nginx] : [nginx];
  const proc = startProcess('nginx', command[0]!, [...command.slice(1), '-c', conf, '-p', join(dir, 'nginx')], {
    logFile: join(dir, 'nginx', 'stdout.log'),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor('nginx to answer', async () => (await fetch(`${url}/`)).status > 0);
  return { url, process: proc };
}

/**
 * nginx with proxy_cache in front of S3 (`s3`: its endpoint, http://host:port), its cache bounded at
 * `cacheMb` like the delivery node's: the peer for misses (see the top of this file for the tuning).
 */
async function startProxyCacheNginx(
  nginx: string,
  dir: string,
  s3: string,
  cacheMb: number,
): Promise<{ url: string; process: ManagedProcess; statusLog: string }> {
  const port = await freePort();
  const upstream = new URL(s3).host;
  for (const sub of ['logs', 'tmp', 'cache']) mkdirSync(join(dir, 'nginx', sub), { recursive: true });
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
  # One word a request (HIT, MISS, ...), buffered: the bench counts what share of a run missed.
  log_format cache_status '$upstream_cache_status';
  access_log ${dir}/nginx/logs/cache-status.log cache_status buffer=256k flush=1s;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_requests 1000000;
  keepalive_timeout 65;
  client_body_temp_path ${dir}/nginx/tmp;
  proxy_temp_path ${dir}/nginx/tmp;
  fastcgi_temp_path ${dir}/nginx/tmp;
  uwsgi_temp_path ${dir}/nginx/tmp;
  scgi_temp_path ${dir}/nginx/tmp;
  proxy_cache_path ${dir}/nginx/cache levels=1:2 keys_zone=segments:10m max_size=${cacheMb}m inactive=1d use_temp_path=off;
  upstream s3 {
    server ${upstream};
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    # /g{n}/ names the generation of a cached copy (see LruGenerations): part of the cache key, not of S3's path.
    location ~ ^/g[0-9]+(/.*)$ {
      proxy_pass http://s3$1$is_args$args;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host ${upstream};
      proxy_cache segments;
      proxy_cache_key $uri;
      proxy_cache_valid 200 1y;
      proxy_cache_lock on;
      proxy_cache_lock_timeout 10s;
      proxy_buffering on;
      proxy_buffer_size 64k;
      proxy_buffers 32 64k;
      proxy_busy_buffers_size 512k;
      add_header Access-Control-Allow-Origin *;
      add_header X-Cache $upstream_cache_status;
    }
  }
}
`,
  );
  const command = pinned ? ['taskset', '-c', serverCore, nginx] : [nginx];
  const proc = startProcess(
    'nginx-proxy-cache',
    command[0]!,
    [...command.slice(1), '-c', conf, '-p', join(dir, 'nginx')],
    { logFile: join(dir, 'nginx', 'stdout.log') },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor('nginx proxy_cache to answer', async () => (await fetch(`${url}/g0/`)).status > 0);
  return { url, process: proc, statusLog: join(dir, 'nginx', 'logs', 'cache-status.log') };
}

/** The delivery node's cache lookups so far, from its own /metrics: hits (every tier) and misses (storage reads). */
async function kinoLookups(url: string): Promise<{ hits: number; misses: number }> {
  const scrape = new Scrape(await (await fetch(`${url}/metrics`)).text());
  const sum = (family: string) => scrape.matching(family).reduce((total, sample) => total + sample.value, 0);
  return { hits: sum('kino_delivery_cache_hits_total'), misses: sum('kino_delivery_cache_misses_total') };
}

/**
 * The share of MISS among the cache statuses nginx logged after line `from`, once the log (flushed
 * each second) holds at least `requests` more lines: the timed run's answers, besides its warm-up's.
 */
async function proxyMissShare(
  statusLog: string,
  from: number,
  requests: number,
): Promise<{ share: number; lines: number }> {
  const lines = await waitFor('nginx to flush its cache-status log', () => {
    const logged = readFileSync(statusLog, 'utf8').split('\n').filter(Boolean);
    return logged.length - from >= requests && logged;
  });
  const run = lines.slice(from);
  return { share: run.filter((l) => l === 'MISS').length / Math.max(1, run.length), lines: lines.length };
}

interface Row {
  work: string;
  connections: number;
  /** nginx: from disk; proxy: nginx proxy_cache in front of S3; public and private: the delivery node. */
  target: 'nginx' | 'proxy' | 'public' | 'private';
  round: number;
  result: LoadResult;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Medians over rounds per case, and for Kino the median of its per-round ratios to nginx. */
function summarize(rows: Row[]) {
  const cases = [...new Set(rows.map((r) => `${r.work}\n${r.connections}\n${r.target}`))].map((key) => {
    const [work, connections, target] = key.split('\n') as [string, string, Row['target']];
    const mine = rows.filter((r) => r.work === work && r.connections === Number(connections) && r.target === target);
    const peerOf = (r: Row, peer: Row['target']) =>
      rows.find((n) => n.work === work && n.connections === r.connections && n.round === r.round && n.target === peer)
        ?.result;
    const pairs = mine.map((r) => ({ mine: r.result, nginx: peerOf(r, 'nginx')!, proxy: peerOf(r, 'proxy') }));
    const ratio = (a: number, b: number) => (a > 0 && b > 0 ? a / b : Number.NaN);
    return {
      work,
      connections: Number(connections),
      target,
      requestsPerSecond: median(mine.map((r) => r.result.requestsPerSecond)),
      p50Ms: median(mine.map((r) => r.result.p50Ms)),
      p99Ms: median(mine.map((r) => r.result.p99Ms)),
      maxMs: Math.max(...mine.map((r) => r.result.maxMs)),
      timeouts: mine.reduce((sum, r) => sum + r.result.timeouts, 0),
      serverCoreBusy: median(mine.map((r) => r.result.serverCoreBusy)),
      clientCoreBusy: median(mine.map((r) => r.result.clientCoreBusy)),
      cpuMsPerRequest: median(mine.map((r) => r.result.cpuMsPerRequest)),
      cpuSecondsPerGb: median(mine.map((r) => r.result.cpuSecondsPerGb)),
      storageCpuMsPerRequest: median(mine.map((r) => r.result.storageCpuMsPerRequest)),
      rpsRatio: median(pairs.map((p) => ratio(p.mine.requestsPerSecond, p.nginx.requestsPerSecond))),
      p99Ratio: median(pairs.map((p) => ratio(p.mine.p99Ms, p.nginx.p99Ms))),
      proxyRpsRatio: median(
        pairs.map((p) => (p.proxy ? ratio(p.mine.requestsPerSecond, p.proxy.requestsPerSecond) : Number.NaN)),
      ),
      proxyP99Ratio: median(pairs.map((p) => (p.proxy ? ratio(p.mine.p99Ms, p.proxy.p99Ms) : Number.NaN))),
    };
  });
  return cases;
}

const percent = (share: number) => (Number.isFinite(share) ? `${(share * 100).toFixed(0)} %` : 'n/a');

function printSummary(summary: ReturnType<typeof summarize>): void {
  const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
  const table = [
    [
      'work',
      'conns',
      'target',
      'req/s',
      'p50 ms',
      'p99 ms',
      'max ms',
      'timeouts',
      'server core',
      'client core',
      'CPU ms/req',
      'CPU s/GB',
      'S3 CPU ms/req',
      'req/s vs nginx',
      'p99 vs nginx',
      'req/s vs proxy_cache',
      'p99 vs proxy_cache',
    ],
  ];
  const isKino = (c: { target: Row['target'] }) => c.target === 'public' || c.target === 'private';
  for (const c of summary) {
    table.push([
      c.work,
      String(c.connections),
      c.target === 'proxy' ? 'nginx proxy_cache' : c.target,
      fixed(c.requestsPerSecond, 0),
      fixed(c.p50Ms, 2),
      fixed(c.p99Ms, 2),
      fixed(c.maxMs, 0),
      String(c.timeouts),
      percent(c.serverCoreBusy),
      percent(c.clientCoreBusy),
      fixed(c.cpuMsPerRequest, 2),
      fixed(c.cpuSecondsPerGb, 2),
      fixed(c.storageCpuMsPerRequest, 2),
      c.target === 'nginx' ? '' : fixed(c.rpsRatio, 2),
      c.target === 'nginx' ? '' : fixed(c.p99Ratio, 2),
      isKino(c) ? fixed(c.proxyRpsRatio, 2) : '',
      isKino(c) ? fixed(c.proxyP99Ratio, 2) : '',
    ]);
  }
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  for (const line of table) console.log(line.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
}

/** The share of requests an LRU of `capacity` objects answers from cache for this order (played twice: warm). */
function simulateLru(order: number[], capacity: number): number {
  const lru = new Map<number, true>();
  let hits = 0;
  for (const [n, item] of [...order, ...order].entries()) {
    if (lru.delete(item) && n >= order.length) hits++;
    lru.set(item, true);
    if (lru.size > capacity) lru.delete(lru.keys().next().value!);
  }
  return hits / order.length;
}

/**
 * nginx evicts lazily: its cache manager enforces `max_size` at most every 10 s
 * (ngx_http_file_cache_manager sleeps until the next `inactive` expiry, capped at 10 s), so a 16 MB
 * cache held all 28 MB of the cold work for a whole 4 s run (1 % MISS measured) while the delivery
 * node's LRU, which evicts as it stores, missed every request. So the peer is asked for each object
 * under a generation prefix (`/g{n}/`, in nginx's cache key, stripped before S3) that changes whenever
 * an eager LRU of the cache's size would have evicted the object: nginx misses where the delivery
 * node's LRU does, for the same request sequence, and its manager evicts the old generations (least
 * recently used first) at its own pace. Generations are unique across the whole run.
 */
let lastGeneration = 0;
class LruGenerations {
  private readonly cached = new Map<string, number>();
  misses = 0;
  private readonly capacity: number;
  constructor(capacity: number) {
    this.capacity = capacity;
  }
  /** The path to ask for `path` now, under its current generation (a new one on a miss). */
  request(path: string): string {
    let generation = this.cached.get(path);
    if (generation === undefined) {
      generation = ++lastGeneration;
      this.misses++;
    } else this.cached.delete(path);
    this.cached.set(path, generation);
    if (this.cached.size > this.capacity) this.cached.delete(this.cached.keys().next().value!);
    return `/g${generation}${path}`;
  }
}

/** `count` paths of the proxy peer's list, from `order` played cyclically from `start`, through `lru`. */
function generationPaths(lru: LruGenerations, order: string[], start: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => lru.request(order[(start + i) % order.length]!));
}

/** A deterministic generator (mulberry32), so nginx and Kino get the same request sequence. */
function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Request order for the popular work: `count` picks of item indexes under a Zipf law (s = 1) over a
 * popularity order shuffled once, so popularity is not tied to a video or a segment number.
 */
function zipfOrder(items: number, count: number): number[] {
  const random = seededRandom(42);
  const rankToItem = Array.from({ length: items }, (_, i) => i);
  for (let i = items - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [rankToItem[i], rankToItem[j]] = [rankToItem[j]!, rankToItem[i]!];
  }
  const weights = rankToItem.map((_, rank) => 1 / (rank + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  return Array.from({ length: count }, () => {
    let x = random() * total;
    let rank = 0;
    while (x >= weights[rank]! && rank < items - 1) x -= weights[rank++]!;
    return rankToItem[rank]!;
  });
}

async function main(): Promise<void> {
  const load: Load =
    client === 'wrk'
      ? { client, binary: ensureInstalled('wrk', 'wrk') }
      : { client: 'loadgen', binary: buildLoadgen(mkdtempSync(join(tmpdir(), 'kino-loadgen-'))) };
  const nginx = ensureInstalled('nginx', 'nginx');
  // This process's threads on core 0: every process started from here (the stack, the client) inherits it.
  if (pinned) execFileSync('taskset', ['-a', '-cp', stackCore, String(process.pid)], { stdio: 'ignore' });
  process.stderr.write(
    `[bench] starting PostgreSQL, SeaweedFS, ClickHouse, the API and a delivery node (caches ${cacheMb} MB)\n`,
  );
  const stack = await startDeliveryStack({
    analytics: 'clickhouse-server',
    shipIntervalMs: 1000,
    deliveryEnv: {
      DELIVERY_MEMORY_CACHE_MB: String(cacheMb),
      DELIVERY_CACHE_MAX_MB: String(cacheMb),
      // A V8 CPU profile of the delivery node, written when it stops (open it in Chrome DevTools).
      ...(cpuProfileDir
        ? {
            NODE_OPTIONS: `--import ${join(import.meta.dirname, 'cpu-profile.mjs')}`,
            BENCH_CPU_PROFILE_DIR: cpuProfileDir,
          }
        : {}),
    },
  });
  // Every thread of the delivery node (the event loop, libuv's pool, V8's) moves to the server's core.
  if (pinned)
    execFileSync('taskset', ['-a', '-cp', serverCore, String(stack.delivery.process.child.pid)], { stdio: 'ignore' });
  const nginxServers: Record<string, { url: string; process: ManagedProcess }> = {};
  const dir = stack.services.dir;
  try {
    process.stderr.write(
      `[bench] making ${videosPerKind} public and ${videosPerKind} private videos of ${videoSeconds} s at 720p, 2500 kb/s\n`,
    );
    const fixture = (allowPublicAccess: boolean) =>
      createHlsFixture({
        db: stack.db,
        storage: stack.storage,
        workDir: dir,
        allowPublicAccess,
        orgId: stack.orgId,
        envId: stack.envId,
        seconds: videoSeconds,
        ladder: [{ width: 1280, height: 720 }],
        videoBitrateKbps: 2500,
      });
    const videos: { pub: HlsFixture[]; priv: HlsFixture[] } = { pub: [], priv: [] };
    for (let i = 0; i < videosPerKind; i++) {
      videos.pub.push(await fixture(true));
      videos.priv.push(await fixture(false));
    }
    // The same files on disk for nginx, one directory per video.
    const root = join(dir, 'nginx-root');
    const segmentsOf = (f: HlsFixture) => Array.from({ length: f.renditions[0]!.segmentCount }, (_, i) => i);
    let workingSetBytes = 0;
    for (const f of [...videos.pub, ...videos.priv]) {
      mkdirSync(join(root, f.videoId), { recursive: true });
      for (const i of segmentsOf(f)) {
        const data = f.objects.get(objectKeys.segment(f.videoId, 720, i))!;
        if (videos.pub.includes(f)) workingSetBytes += data.length;
        writeFileSync(join(root, f.videoId, `seg-${String(i).padStart(5, '0')}.m4s`), data);
      }
    }
    // The proxy_cache peer's URLs: presigned GETs (4 h) of the same public segments, asked of nginx.
    const presigned = new Map<string, string>();
    for (const f of videos.pub) {
      for (const i of segmentsOf(f)) {
        const url = new URL(await stack.storage.presignGet(objectKeys.segment(f.videoId, 720, i), 4 * 3600));
        presigned.set(`${f.videoId}/${i}`, `${url.pathname}${url.search}`);
      }
    }
    // SeaweedFS, whose CPU per request says what each side's misses cost storage.
    const storagePid =
      Number(execFileSync('pgrep', ['-n', '-f', `weed server -dir=${dir}`], { encoding: 'utf8' }).trim()) || undefined;
    const proxyCache = await startProxyCacheNginx(
      nginx,
      join(dir, 'nginx-proxy-cache'),
      stack.services.storage.S3_ENDPOINT!,
      cacheMb,
    );
    nginxServers['proxy_cache'] = proxyCache;
    const tokens = new Map<string, string>();
    for (const f of videos.priv)
      tokens.set(
        f.videoId,
        new URL(await signedUrlOf(stack, f.videoId, { expiration: '4h' })).searchParams.get('token')!,
      );
    const paths = {
      nginx: (set: HlsFixture[]) =>
        set.flatMap((f) => segmentsOf(f).map((i) => `/${f.videoId}/seg-${String(i).padStart(5, '0')}.m4s`)),
      proxy: (set: HlsFixture[]) => set.flatMap((f) => segmentsOf(f).map((i) => presigned.get(`${f.videoId}/${i}`)!)),
      public: (set: HlsFixture[]) =>
        set.flatMap((f) =>
          segmentsOf(f).map((i) => `/v1/public/${f.orgId}/${f.envId}/${f.videoId}/video-720p/seg-${i}.m4s`),
        ),
      private: (set: HlsFixture[]) =>
        set.flatMap((f) =>
          segmentsOf(f).map((i) => `/v1/private/${f.videoId}/video-720p/seg-${i}.m4s?token=${tokens.get(f.videoId)!}`),
        ),
    };
    const hotSize = videos.pub[0]!.objects.get(objectKeys.segment(videos.pub[0]!.videoId, 720, 0))!.length;
    process.stderr.write(
      `[bench] working set: ${(workingSetBytes / 1024 / 1024).toFixed(0)} MB of public segments (${paths.public(videos.pub).length}), as much private; delivery caches ${cacheMb} MB\n`,
    );

    // The strongest nginx at each concurrency: every configuration on the hot segment, `rounds`
    // times in turn, and the one with the best median there serves that concurrency's cases. A
    // configuration's rate can swing by half between two 4 s runs ("no sendfile, output_buffers 4
    // 1m" made 805 and 1,934 req/s in one run), so a single probe could pick nginx's weaker mode.
    for (const [index, [name, fileIo]] of Object.entries(nginxVariants).entries()) {
      nginxServers[name] = await startNginx(nginx, join(dir, `nginx-${index}`), root, fileIo);
    }
    const hot = paths.nginx(videos.pub).slice(0, 1);
    const probes: Record<number, Record<string, number>> = {};
    const bestAt: Record<number, string> = {};
    for (const connections of concurrencies) {
      const tried: Record<string, number[]> = Object.fromEntries(Object.keys(nginxVariants).map((name) => [name, []]));
      for (let round = 0; round < rounds; round++) {
        for (const [name, server] of Object.entries(nginxServers)) {
          if (!(name in nginxVariants)) continue;
          try {
            runLoad(load, server.url, hot, connections, 1, dir);
            const result = runLoad(load, server.url, hot, connections, seconds, dir);
            tried[name]!.push(result.non2xx > 0 ? 0 : result.requestsPerSecond);
          } catch (error) {
            process.stderr.write(`[bench] nginx "${name}" failed: ${(error as Error).message.split('\n')[0]}\n`);
            tried[name]!.push(0);
          }
        }
      }
      probes[connections] = Object.fromEntries(Object.entries(tried).map(([name, rates]) => [name, median(rates)]));
      bestAt[connections] = Object.entries(probes[connections]!).sort((a, b) => b[1] - a[1])[0]![0];
      process.stderr.write(
        `[bench] nginx at ${connections} conns: ${Object.entries(tried)
          .map(([name, rates]) => `${name} ${rates.map((r) => r.toFixed(0)).join('/')}`)
          .join('; ')} req/s\n`,
      );
    }

    const origins = { public: stack.delivery.url, private: stack.delivery.url };
    const segmentCount = paths.nginx(videos.pub).length;
    // Lists run video by video, segment by segment: the popular items are each video's first segments.
    const perVideo = videos.pub[0]!.renditions[0]!.segmentCount;
    const popularItems = videos.pub.flatMap((_, v) =>
      Array.from({ length: popularSegmentsPerVideo }, (_, i) => v * perVideo + i),
    );
    const popular = zipfOrder(popularItems.length, 4_000).map((k) => popularItems[k]!);
    const cacheCapacity = Math.floor((cacheMb * 1024 * 1024) / hotSize);
    const hits = simulateLru(popular, cacheCapacity);
    // The peer's timed list outlasts any run (checked after each), its warm-up is played through in 1 s.
    const proxyWarmUpRequests = 500;
    const proxyTimedRequests = 30_000;
    const works: Record<string, { public: HlsFixture[]; private: HlsFixture[]; order: (list: string[]) => string[] }> =
      {
        [`hot: one segment (${(hotSize / 1024).toFixed(0)} KiB)`]: {
          public: videos.pub.slice(0, 1),
          private: videos.priv.slice(0, 1),
          order: (list) => list.slice(0, 1),
        },
        [`popular: Zipf over ${popularItems.length} segments (~${Math.round(hits * 100)} % cache hits)`]: {
          public: videos.pub,
          private: videos.priv,
          order: (list) => popular.map((i) => list[i]!),
        },
        [`cold: ${segmentCount} segments in turn (cache misses)`]: {
          public: videos.pub,
          private: videos.priv,
          order: (list) => list,
        },
      };
    const rows: Row[] = [];
    let proxyLogLines = 0;
    for (const [work, sets] of Object.entries(works)) {
      if (!workKinds.includes(work.split(':')[0]!)) continue;
      for (const connections of concurrencies) {
        for (let round = 0; round < rounds; round++) {
          // Alternate who goes first, so a drift in the machine's load favours neither side.
          const order =
            round % 2 === 0
              ? (['nginx', 'proxy', 'public', 'private'] as const)
              : (['public', 'private', 'proxy', 'nginx'] as const);
          for (const target of order) {
            const list =
              target === 'private'
                ? paths.private(sets.private)
                : target === 'public'
                  ? paths.public(sets.public)
                  : paths[target](sets.public);
            const chosen = sets.order(list);
            const server =
              target === 'nginx'
                ? nginxServers[bestAt[connections]!]!
                : target === 'proxy'
                  ? proxyCache
                  : { url: origins[target], process: stack.delivery.process };
            // The peer's lists: a warm-up short enough to be played through (so what the LRU keeps is
            // in nginx's cache), then a timed list longer than any run, continuing the same LRU.
            const lru = new LruGenerations(cacheCapacity);
            const warmUp = target === 'proxy' ? generationPaths(lru, chosen, 0, proxyWarmUpRequests) : chosen;
            const missesBefore = lru.misses;
            const timed =
              target === 'proxy' ? generationPaths(lru, chosen, proxyWarmUpRequests, proxyTimedRequests) : chosen;
            runLoad(load, server.url, warmUp, connections, 1, dir); // warm-up: connections, JIT, and for hot, the cache
            const lookupsBefore = target === 'proxy' || target === 'nginx' ? undefined : await kinoLookups(server.url);
            const result = runLoad(
              load,
              server.url,
              timed,
              connections,
              seconds,
              dir,
              server.process.child.pid,
              storagePid,
            );
            if (target === 'proxy' && result.requests > proxyTimedRequests)
              throw new Error(
                `the proxy peer served ${result.requests} requests, more than its list of ${proxyTimedRequests}: lengthen it`,
              );
            if (result.non2xx > 0) throw new Error(`${target} ${work}: ${result.non2xx} responses were not 2xx`);
            // Every hot response carried the whole segment (loadgen counts body bytes; wrk does not).
            if (
              work.startsWith('hot') &&
              !Number.isNaN(result.bodyBytesPerRequest) &&
              result.bodyBytesPerRequest !== hotSize
            ) {
              throw new Error(
                `${target} ${work}: ${result.bodyBytesPerRequest} body bytes per response, the segment has ${hotSize}`,
              );
            }
            rows.push({ work, connections, target, round, result });
            let misses = '';
            if (lookupsBefore) {
              const after = await kinoLookups(server.url);
              const [hits, missed] = [after.hits - lookupsBefore.hits, after.misses - lookupsBefore.misses];
              misses = `, Kino storage reads ${((missed / Math.max(1, hits + missed)) * 100).toFixed(0)} % of lookups`;
            } else if (target === 'proxy') {
              const logged = await proxyMissShare(proxyCache.statusLog, proxyLogLines, result.requests);
              const expected = (lru.misses - missesBefore) / proxyTimedRequests;
              misses = `, nginx MISS ${(logged.share * 100).toFixed(0)} % (warm-up included; an eager LRU of the same size: ${(expected * 100).toFixed(0)} %)`;
              proxyLogLines = logged.lines;
            }
            process.stderr.write(
              `[bench] ${work}, ${connections} conns, round ${round + 1}, ${target}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, ` +
                `CPU ${result.cpuMsPerRequest.toFixed(2)} ms/req${misses}\n`,
            );
          }
        }
      }
    }

    console.log(
      `\nbench/delivery: ${client === 'wrk' ? 'wrk -t1' : 'loadgen, one thread'}, ${seconds} s per run, ${rounds} rounds per case (medians; max: the slowest response of any round; ratios are medians of per-round ratios), loopback; nginx 1 worker, delivery 1 process${pinned ? `; the server under test alone on core ${serverCore}, the client and the rest of the stack on core ${stackCore}` : ''}`,
    );
    for (const connections of concurrencies) {
      const tried = Object.entries(probes[connections]!)
        .map(([n, r]) => `${n} ${r.toFixed(0)}`)
        .join('; ');
      console.log(
        `nginx at ${connections} conns (hot segment, median req/s of ${rounds}): ${tried}; baseline "${bestAt[connections]}" (${nginxVariants[bestAt[connections]!]})`,
      );
    }
    console.log('');
    const summary = summarize(rows);
    printSummary(summary);
    for (const c of summary.filter((r) => r.work.startsWith('hot') && r.target === 'public')) {
      const p99 = Number.isFinite(c.p99Ratio)
        ? `${c.p99Ratio.toFixed(2)}x (<= 1.5: ${c.p99Ratio <= 1.5 ? 'met' : 'NOT met'})`
        : 'n/a (no latency measured: see timeouts)';
      const nginxCase = summary.find(
        (n) => n.work === c.work && n.connections === c.connections && n.target === 'nginx',
      )!;
      const busy = (x: { serverCoreBusy: number; clientCoreBusy: number }) =>
        `server ${percent(x.serverCoreBusy)}, client ${percent(x.clientCoreBusy)}`;
      console.log(
        `goal, hot public at ${c.connections} conns: req/s ${c.rpsRatio.toFixed(2)}x nginx (>= 1.0: ${c.rpsRatio >= 1 ? 'met' : 'NOT met'}), p99 ${p99}` +
          (pinned ? `; cores busy: Kino's run ${busy(c)}, nginx's ${busy(nginxCase)}` : ''),
      );
    }
    // The issue's goals against the proxy_cache peer (popular and cold), and a miss's CPU against a hit's.
    for (const c of summary.filter((r) => r.target === 'public' && !r.work.startsWith('hot'))) {
      console.log(
        `goal, ${c.work.split(':')[0]} public at ${c.connections} conns vs nginx proxy_cache: req/s ${c.proxyRpsRatio.toFixed(2)}x (>= 0.9: ${c.proxyRpsRatio >= 0.9 ? 'met' : 'NOT met'}), ` +
          `p99 ${c.proxyP99Ratio.toFixed(2)}x (<= 1.5: ${c.proxyP99Ratio <= 1.5 ? 'met' : 'NOT met'}); CPU ${c.cpuMsPerRequest.toFixed(2)} ms/req`,
      );
    }
    for (const cold of summary.filter((r) => r.target === 'public' && r.work.startsWith('cold'))) {
      const hot = summary.find(
        (r) => r.target === 'public' && r.work.startsWith('hot') && r.connections === cold.connections,
      );
      if (!hot) continue;
      const times = cold.cpuMsPerRequest / hot.cpuMsPerRequest;
      console.log(
        `goal, Kino's CPU per miss vs per hit at ${cold.connections} conns: ${cold.cpuMsPerRequest.toFixed(2)} / ${hot.cpuMsPerRequest.toFixed(2)} ms = ${times.toFixed(2)}x (<= 2: ${times <= 2 ? 'met' : 'NOT met'})`,
      );
    }
    console.log(`load average at the end: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
    const loggedRows = await waitFor('segment rows in ClickHouse', async () => {
      const [row] = await stack.clickhouse.query<{ n: number }>('SELECT count() AS n FROM segment_deliveries');
      return row && row.n > 0 ? row.n : undefined;
    });
    console.log(`segment rows logged to ClickHouse so far: ${loggedRows}`);
  } finally {
    for (const server of Object.values(nginxServers)) await server.process.stop();
    await stack.stop();
  }
}

await main();
