// Delivery benchmark: wrk on loopback against a delivery node (`kino delivery`, real PostgreSQL,
// SeaweedFS, API for the token, ClickHouse server for the segment logs), public and private
// (token-carrying) media segments, against nginx serving the same files from disk, in the same run.
//
// The baseline is the strongest nginx we know for large static files: the configurations nginx's
// documentation suggests (sendfile with and without tcp_nopush, sendfile_max_chunk, sendfile off
// with large output_buffers, aio threads with directio) are each tried on a hot segment and the
// fastest serves every case; the run prints which. nginx gets as many workers as Kino has delivery
// processes (one).
//
// The work is meant to be realistic: several videos of several 720p segments (about 2 MB each),
// with the delivery node's caches set smaller than that working set, so a sweep over all segments
// misses and goes to storage; a hot case repeats one segment. Each case runs at several
// concurrencies (8, 32, 128 connections), public and private, and prints req/s, p50 and p99 for
// Kino and nginx. Segment logging is on (every request the node answers writes a spool row).
//
// Usage: npm run bench:delivery   (installs wrk and nginx with apt when missing)
// Env: BENCH_SECONDS (4), BENCH_CONNECTIONS (8,32,128), BENCH_VIDEOS (3 public + 3 private),
//      BENCH_CACHE_MB (16: the delivery node's memory and disk cache each).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startProcess, waitFor, type ManagedProcess } from '@kino/infra/dev';
import { objectKeys } from '@kino/proto/contract';
import { createHlsFixture, type HlsFixture } from '../../test/support/hls-fixture.ts';
import { signedUrlOf, startDeliveryStack } from '../../test/delivery/harness.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const concurrencies = (process.env.BENCH_CONNECTIONS ?? '8,32,128').split(',').map(Number);
const videosPerKind = Number(process.env.BENCH_VIDEOS ?? 3);
const cacheMb = Number(process.env.BENCH_CACHE_MB ?? 16);
/** 30 s videos: five 6 s segments each. */
const videoSeconds = 30;

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
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** Requests wrk gave up on after its timeout (10 s): they count in no latency figure. */
  timeouts: number;
}

function toMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(value.trim());
  if (!match) throw new Error(`cannot read wrk latency ${value}`);
  const n = Number(match[1]);
  return match[2] === 'us' ? n / 1000 : match[2] === 's' ? n * 1000 : n;
}

/** A wrk run; with several paths, a Lua script cycles through them (the working-set case). */
function runWrk(wrk: string, origin: string, paths: string[], connections: number, duration: number, scriptDir: string): WrkResult {
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
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  const timeouts = /Socket errors:.*timeout (\d+)/.exec(out);
  if (!rps || !p50 || !p99) throw new Error(`cannot read wrk output:\n${out}`);
  return {
    requestsPerSecond: Number(rps[1]),
    p50Ms: toMs(p50[1]!),
    p99Ms: toMs(p99[1]!),
    non2xx: Number(non2xx?.[1] ?? 0),
    timeouts: Number(timeouts?.[1] ?? 0),
  };
}

/** nginx configurations for large static files, after its documentation (ngx_http_core_module). */
const nginxVariants: Record<string, string> = {
  'sendfile + tcp_nopush': 'sendfile on; tcp_nopush on;',
  'sendfile, 512k chunks': 'sendfile on; tcp_nopush off; sendfile_max_chunk 512k;',
  'no sendfile, output_buffers 4 1m': 'sendfile off; output_buffers 4 1m;',
  'aio threads + directio 4m': 'sendfile off; aio threads; directio 4m; output_buffers 2 1m;',
};

async function startNginx(nginx: string, dir: string, root: string, fileIo: string): Promise<{ url: string; process: ManagedProcess }> {
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
  const proc = startProcess('nginx', nginx, ['-c', conf, '-p', join(dir, 'nginx')], { logFile: join(dir, 'nginx', 'stdout.log') });
  const url = `http://127.0.0.1:${port}`;
  await waitFor('nginx to answer', async () => (await fetch(`${url}/`)).status > 0);
  return { url, process: proc };
}

interface Row {
  work: string;
  connections: number;
  target: 'nginx' | 'public' | 'private';
  result: WrkResult;
}

function printRows(rows: Row[]): void {
  const ratio = (a: number, b: number) => (a > 0 && b > 0 ? (a / b).toFixed(2) : 'n/a');
  const table = [['work', 'conns', 'target', 'req/s', 'p50 ms', 'p99 ms', 'timeouts', 'req/s vs nginx', 'p99 vs nginx']];
  for (const row of rows) {
    const nginx = rows.find((r) => r.work === row.work && r.connections === row.connections && r.target === 'nginx')!.result;
    table.push([
      row.work,
      String(row.connections),
      row.target,
      row.result.requestsPerSecond.toFixed(0),
      row.result.p50Ms.toFixed(2),
      row.result.p99Ms.toFixed(2),
      String(row.result.timeouts),
      ratio(row.result.requestsPerSecond, nginx.requestsPerSecond),
      ratio(row.result.p99Ms, nginx.p99Ms),
    ]);
  }
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  for (const line of table) console.log(line.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
}

async function main(): Promise<void> {
  const wrk = ensureInstalled('wrk', 'wrk');
  const nginx = ensureInstalled('nginx', 'nginx');
  process.stderr.write(`[bench] starting PostgreSQL, SeaweedFS, ClickHouse, the API and a delivery node (caches ${cacheMb} MB)\n`);
  const stack = await startDeliveryStack({
    analytics: 'clickhouse-server',
    shipIntervalMs: 1000,
    deliveryEnv: { DELIVERY_MEMORY_CACHE_MB: String(cacheMb), DELIVERY_CACHE_MAX_MB: String(cacheMb) },
  });
  let nginxServer: { url: string; process: ManagedProcess } | undefined;
  const dir = stack.services.dir;
  try {
    process.stderr.write(`[bench] making ${videosPerKind} public and ${videosPerKind} private videos of ${videoSeconds} s at 720p, 2500 kb/s\n`);
    const fixture = (allowPublicAccess: boolean) =>
      createHlsFixture({
        db: stack.db, storage: stack.storage, workDir: dir, allowPublicAccess, orgId: stack.orgId, envId: stack.envId,
        seconds: videoSeconds, ladder: [{ width: 1280, height: 720 }], videoBitrateKbps: 2500,
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
    const tokens = new Map<string, string>();
    for (const f of videos.priv) tokens.set(f.videoId, new URL(await signedUrlOf(stack, f.videoId, { expiration: '4h' })).searchParams.get('token')!);
    const paths = {
      nginx: (set: HlsFixture[]) => set.flatMap((f) => segmentsOf(f).map((i) => `/${f.videoId}/seg-${String(i).padStart(5, '0')}.m4s`)),
      public: (set: HlsFixture[]) => set.flatMap((f) => segmentsOf(f).map((i) => `/v1/public/${f.orgId}/${f.envId}/${f.videoId}/video-720p/seg-${i}.m4s`)),
      private: (set: HlsFixture[]) =>
        set.flatMap((f) => segmentsOf(f).map((i) => `/v1/private/${f.videoId}/video-720p/seg-${i}.m4s?token=${tokens.get(f.videoId)!}`)),
    };
    const hotSize = videos.pub[0]!.objects.get(objectKeys.segment(videos.pub[0]!.videoId, 720, 0))!.length;
    process.stderr.write(`[bench] working set: ${(workingSetBytes / 1024 / 1024).toFixed(0)} MB of public segments (${paths.public(videos.pub).length}), as much private; delivery caches ${cacheMb} MB\n`);

    // The strongest nginx: each configuration on the hot segment, 32 connections; the fastest serves the rest.
    const probes: Record<string, number> = {};
    for (const [name, fileIo] of Object.entries(nginxVariants)) {
      await nginxServer?.process.stop();
      nginxServer = await startNginx(nginx, join(dir, `nginx-${Object.keys(probes).length}`), root, fileIo);
      const hot = paths.nginx(videos.pub).slice(0, 1);
      try {
        runWrk(wrk, nginxServer.url, hot, 32, 1, dir);
        const result = runWrk(wrk, nginxServer.url, hot, 32, seconds, dir);
        probes[name] = result.non2xx > 0 ? 0 : result.requestsPerSecond;
      } catch (error) {
        process.stderr.write(`[bench] nginx "${name}" failed: ${(error as Error).message.split('\n')[0]}\n`);
        probes[name] = 0;
      }
      process.stderr.write(`[bench] nginx "${name}": ${probes[name]!.toFixed(0)} req/s on the hot segment\n`);
    }
    const best = Object.entries(probes).sort((a, b) => b[1] - a[1])[0]![0];
    await nginxServer?.process.stop();
    nginxServer = await startNginx(nginx, join(dir, 'nginx-best'), root, nginxVariants[best]!);

    const origins = { nginx: nginxServer.url, public: stack.delivery.url, private: stack.delivery.url };
    const works = {
      [`hot: one segment (${(hotSize / 1024).toFixed(0)} KiB)`]: { public: videos.pub.slice(0, 1), private: videos.priv.slice(0, 1), hot: true },
      'working set > cache: every segment in turn': { public: videos.pub, private: videos.priv, hot: false },
    };
    const rows: Row[] = [];
    for (const [work, sets] of Object.entries(works)) {
      for (const connections of concurrencies) {
        for (const target of ['nginx', 'public', 'private'] as const) {
          const list = target === 'private' ? paths.private(sets.private) : target === 'public' ? paths.public(sets.public) : paths.nginx(sets.public);
          const chosen = sets.hot ? list.slice(0, 1) : list;
          runWrk(wrk, origins[target], chosen, connections, 1, dir); // warm-up: connections, JIT, and for hot, the cache
          const result = runWrk(wrk, origins[target], chosen, connections, seconds, dir);
          if (result.non2xx > 0) throw new Error(`${target} ${work}: ${result.non2xx} responses were not 2xx`);
          rows.push({ work, connections, target, result });
          process.stderr.write(`[bench] ${work}, ${connections} conns, ${target}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms\n`);
        }
      }
    }

    console.log(`\nbench/delivery: wrk -t1, ${seconds} s per run, loopback; nginx 1 worker, delivery 1 process`);
    console.log(`nginx configurations tried (hot segment, 32 conns): ${Object.entries(probes).map(([n, r]) => `${n} ${r.toFixed(0)} req/s`).join('; ')}`);
    console.log(`baseline: nginx with "${best}" (${nginxVariants[best]})\n`);
    printRows(rows);
    const hotRows = rows.filter((r) => r.work.startsWith('hot') && r.target === 'public');
    for (const row of hotRows) {
      const nginxRow = rows.find((r) => r.work === row.work && r.connections === row.connections && r.target === 'nginx')!.result;
      const rps = row.result.requestsPerSecond / nginxRow.requestsPerSecond;
      const p99 = row.result.p99Ms / nginxRow.p99Ms;
      const p99Text = Number.isFinite(p99) && p99 > 0 ? `${p99.toFixed(2)}x (<= 1.5: ${p99 <= 1.5 ? 'met' : 'NOT met'})` : 'n/a (no latency measured: see timeouts)';
      console.log(`goal, hot public at ${row.connections} conns: req/s ${rps.toFixed(2)}x nginx (>= 1.0: ${rps >= 1 ? 'met' : 'NOT met'}), p99 ${p99Text}`);
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
