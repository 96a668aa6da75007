// Backups and restore as docs/production.md gives them ("Backups and restore"): the test reads the
// guide's two blocks of commands and runs every line against a farm laid out as deploy/compose.yaml
// lays it out, each service on a host of its own named as the service (network namespaces whose
// /etc/hosts map the names), with the environment the file gives it (.env.example, its secrets made
// as the guide makes them).
//
//   - backing services: PostgreSQL with the `kino` superuser the postgres image makes, the Temporal
//     server on PostgreSQL (its two databases in it, as the file's temporal-schema makes them),
//     SeaweedFS checking signatures against the .env's keys, ClickHouse with the .env's password;
//   - Kino's services: `kino <command>` from sources on their hosts, with the file's environment
//     (the state directories it mounts as volumes are directories of the test); bootstrap first;
//   - `docker compose exec -T postgres <cmd>`: <cmd> by sh on the postgres host, as the container's
//     shell runs it, over the server's socket (the machine's pg_dump and pg_restore); the
//     redirections are the operator's shell's, in the test's working directory;
//   - `docker compose run ... bootstrap <args>`: `kino <args>` on bootstrap's host with its
//     environment, the `-v` volume's container path replaced by its host directory;
//   - `docker compose up`: the services it names (all the others without names) started on fresh
//     data directories.
//
// The farm before the backup: a public video with an English caption track, a private video and a
// segment-accurate clip of the public one, each played from delivery (every segment, every frame) so
// that ClickHouse has their segment rows. After the restore, into fresh services on the same hosts:
// bootstrap creates nothing, the analytics routes answer exactly as before (asked before anything
// plays again), the bucket holds every object with its size and content type (a 65 MiB one, put
// back as a multipart upload, byte for byte), every video is ready and plays as before, captions
// too, the Temporal server has their workflows, the private video's URL signed before the backup
// plays, one signed after does too, and a tampered token is refused. A second `kino admin restore`
// changes neither the bucket nor the analytics answers.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { Connection, Client as TemporalClient } from '@temporalio/client';
import { ConflictError, Kino } from '@kino/sdk';
import { parseConfig, repoRoot, Storage, storageConfigShape } from '@kino/infra';
import { ClickHouseHttp } from '@kino/analytics';
import {
  kinoBin,
  startClickHouse,
  startPostgres,
  startProcess,
  startSeaweed,
  startTemporalServer,
  waitFor,
  WaitAbortedError,
  type ManagedProcess,
} from '@kino/dev';
import { countDecodedFrames, makeClip } from '@kino/test/support/media';
import { createTestNetwork, type NetworkHost, type TestNetwork } from '@kino/test/support/network-hosts';
import { makeEnvSecrets, renderCompose, type ComposeService } from '@kino/test/support/deployment-files';
import {
  connects,
  hostPort,
  readBootstrapOutput,
  waitForActiveNode,
  type FirstInstallation,
} from '@kino/test/support/production-farm';

const execFileAsync = promisify(execFile);

const backingNames = ['postgres', 'temporal', 's3', 'clickhouse'] as const;
const kinoNames = ['bootstrap', 'api', 'orchestrator', 'node', 'delivery'] as const;
type BackingName = (typeof backingNames)[number];
type HostName = BackingName | (typeof kinoNames)[number];
type Stoppable = { stop(): Promise<void> };
/** What `docker compose up` starts here (temporal-schema and temporal-namespace are the Temporal server's start). */
const upNames = new Set<string>([...backingNames, ...kinoNames, 'temporal-schema', 'temporal-namespace']);

let network: TestNetwork;
let workDir: string;
let clipPath: string;
const hosts = {} as Record<HostName, NetworkHost>;
let services: Record<string, ComposeService>;
let installation: FirstInstallation;
let client: Kino;

/** The farm of the moment: the one backed up, then the one restored (same hosts, fresh data). */
let farm: { dataDir: string; running: Map<string, Stoppable>; bootstrapOutput?: string };

/** The guide's two blocks of commands: [backup, restore], each a list of lines. */
function guideCommands(): [string[], string[]] {
  const guide = readFileSync(join(repoRoot, 'docs', 'production.md'), 'utf8');
  const section = /\n## Backups and restore\n([\s\S]*?)\n## /.exec(guide)?.[1];
  assert.ok(section, 'docs/production.md has a "Backups and restore" section');
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) =>
    match[1]!.split('\n').filter((line) => line.trim() && !line.startsWith('#')),
  );
  assert.equal(blocks.length, 2, 'the section gives two blocks of commands: the backup and the restore');
  return blocks as [string[], string[]];
}

const environmentOf = (name: string): Record<string, string> => {
  const environment = services[name]?.environment;
  assert.ok(environment, `deploy/compose.yaml has a service ${name}`);
  return environment;
};

/** A value of the file's environment for a service, which this test needs. */
function setting(service: string, key: string): string {
  const value = environmentOf(service)[key];
  assert.ok(value, `deploy/compose.yaml gives ${service} ${key}`);
  return value;
}

/** The database URL as the test (outside the hosts) reaches it: by the postgres host's address. */
function databaseUrl(): string {
  const url = new URL(setting('api', 'DATABASE_URL'));
  url.hostname = hosts.postgres.address;
  return url.toString();
}

/** Runs `work` on the bucket as bootstrap's settings reach it (by the s3 host's address). */
async function withBucket<T>(work: (storage: Storage) => Promise<T>): Promise<T> {
  const endpoint = new URL(setting('bootstrap', 'S3_ENDPOINT'));
  endpoint.hostname = hosts.s3.address;
  const storage = new Storage(
    parseConfig(storageConfigShape, { ...environmentOf('bootstrap'), S3_ENDPOINT: endpoint.origin }),
  );
  try {
    return await work(storage);
  } finally {
    storage.close();
  }
}

/** Every object of the bucket: its key, size and content type. */
function bucketListing(): Promise<string[]> {
  return withBucket(async (storage) => {
    const objects = await Promise.all(
      (await storage.list('')).map(async (key) => {
        const head = await storage.head(key);
        return `${key} ${head?.size} ${head?.contentType}`;
      }),
    );
    return objects.sort();
  });
}

function analyticsUrl(): string {
  const url = new URL(setting('api', 'CLICKHOUSE_URL'));
  url.hostname = hosts.clickhouse.address;
  return url.toString();
}

function logFile(name: string): string {
  return join(farm.dataDir, 'logs', `${name}.log`);
}

/** Each backing service of the compose file, started on its host and a data directory, with the file's credentials. */
const backingStarters: Record<BackingName, (host: NetworkHost, dataDir: string) => Promise<Stoppable>> = {
  async postgres(host, dataDir) {
    const environment = environmentOf('postgres');
    const server = await startPostgres({
      dataDir,
      port: hostPort(setting('api', 'DATABASE_URL')).port,
      host: host.address,
      runIn: host.runIn,
      database: environment.POSTGRES_DB!,
      login: { user: environment.POSTGRES_USER!, password: environment.POSTGRES_PASSWORD! },
      durable: false,
      logFile: logFile('postgres'),
    });
    // The postgres image makes POSTGRES_USER a superuser: temporal-schema creates its databases with it.
    const admin = new pg.Client({
      connectionString: `postgres://postgres@${host.address}:${new URL(server.url).port}/postgres`,
    });
    await admin.connect();
    await admin.query(`alter role "${environment.POSTGRES_USER!}" superuser`);
    await admin.end();
    return server;
  },
  // The server, its schema in the two databases (temporal-schema) and the default namespace (temporal-namespace).
  temporal: (host, dataDir) =>
    startTemporalServer({
      dir: dataDir,
      port: hostPort(setting('api', 'TEMPORAL_ADDRESS')).port,
      host: host.address,
      runIn: host.runIn,
      postgresUrl: databaseUrl(),
      logFile: logFile('temporal'),
    }),
  s3: (host, dataDir) =>
    startSeaweed({
      dataDir,
      s3Port: hostPort(setting('api', 'S3_ENDPOINT')).port,
      host: host.address,
      runIn: host.runIn,
      bucket: null,
      credentialsFrom: 'environment',
      accessKeyId: setting('s3', 'AWS_ACCESS_KEY_ID'),
      secretAccessKey: setting('s3', 'AWS_SECRET_ACCESS_KEY'),
      logFile: logFile('s3'),
    }),
  clickhouse: (host, dataDir) =>
    startClickHouse({
      dataDir,
      httpPort: hostPort(setting('api', 'CLICKHOUSE_URL')).port,
      host: host.address,
      runIn: host.runIn,
      login: { user: setting('clickhouse', 'CLICKHOUSE_USER'), password: setting('clickhouse', 'CLICKHOUSE_PASSWORD') },
      logFile: logFile('clickhouse'),
    }),
};

function startBackingService(name: BackingName): Promise<Stoppable> {
  return backingStarters[name](hosts[name], join(farm.dataDir, name));
}

/**
 * A Kino service's process environment: the file's, but for the state directories it mounts as
 * volumes (or keeps in the container's layer), which are the farm's directories here.
 */
function kinoEnvironment(name: string): Record<string, string> {
  const state = (key: string) => join(farm.dataDir, name, key);
  const directories: Record<string, string> = {
    DELIVERY_CACHE_DIR: state('cache'),
    DELIVERY_SPOOL_DIR: state('spool'),
    NODE_WORK_DIR: state('work'),
    // The node-state volume: a restore brings back the database, not the nodes' volumes, so it
    // outlives the farm and the restored one's node connects with the certificate it holds.
    NODE_STATE_DIR: join(workDir, 'node-state'),
  };
  const environment = { ...environmentOf(name) };
  for (const key of Object.keys(directories)) if (key in environment) environment[key] = directories[key]!;
  // The token the operator put in .env once the farm was up (docs/production.md, step 4).
  if ('NODE_ENROLL_TOKEN' in environment && nodeEnrollToken) environment.NODE_ENROLL_TOKEN = nodeEnrollToken;
  return { ...environment, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/' };
}

/** The node's enrollment token, made once (`admin nodes enroll` in the bootstrap container) before the node first starts. */
let nodeEnrollToken: string | undefined;

/** `kino <args>` on a service's host with its environment, to completion: its output, or an error with it. */
async function runKino(name: HostName, args: readonly string[]): Promise<string> {
  const { stdout, stderr } = await execFileAsync(
    hosts[name].runIn[0]!,
    [...hosts[name].runIn.slice(1), process.execPath, kinoBin, ...args],
    { cwd: repoRoot, env: kinoEnvironment(name), maxBuffer: 16 << 20 },
  ).catch((error: Error & { stdout?: string; stderr?: string }) => {
    throw new Error(`kino ${args.join(' ')} on ${name} failed:\n${error.stdout ?? ''}${error.stderr ?? error.message}`);
  });
  return `${stdout}${stderr}`;
}

/** A long-running Kino service, started and ready as its healthcheck would say. */
async function startKino(name: Exclude<(typeof kinoNames)[number], 'bootstrap'>): Promise<ManagedProcess> {
  const command = services[name]!.command as string[];
  const child = startProcess(name, process.execPath, [kinoBin, ...command], {
    cwd: repoRoot,
    env: kinoEnvironment(name),
    runIn: hosts[name].runIn,
    logFile: logFile(name),
  });
  const port = { api: 'API_PORT', orchestrator: 'REGISTRY_PORT', node: 'NODE_METRICS_PORT', delivery: 'DELIVERY_PORT' }[
    name
  ];
  await waitFor(
    `${name} to accept connections`,
    async () => {
      if (child.child.exitCode !== null)
        throw new WaitAbortedError(
          `${name} exited (${child.child.exitCode}): ${readFileSync(logFile(name), 'utf8').slice(-3000)}`,
        );
      return (await connects(hosts[name].address, Number(setting(name, port)))) || undefined;
    },
    { timeoutMs: 90_000, intervalMs: 250 },
  );
  return child;
}

/** `docker compose up`: the named services (every one without names) that are not running, on the farm's data. */
async function composeUp(names: readonly string[]): Promise<void> {
  for (const name of names) assert.ok(upNames.has(name), `this test runs compose service ${name}`);
  const wanted = (name: string) => names.length === 0 || names.includes(name);
  const start = async (name: string, starting: () => Promise<Stoppable>) => {
    if (!wanted(name) || farm.running.has(name)) return;
    farm.running.set(name, await starting());
  };
  await Promise.all(
    backingNames.filter((name) => name !== 'temporal').map((name) => start(name, () => startBackingService(name))),
  );
  // The Temporal server keeps its state in PostgreSQL: after it.
  await start('temporal', () => startBackingService('temporal'));
  if (wanted('bootstrap') && !farm.bootstrapOutput)
    farm.bootstrapOutput = await runKino('bootstrap', services.bootstrap!.command as string[]);
  await Promise.all([start('api', () => startKino('api')), start('orchestrator', () => startKino('orchestrator'))]);
  if (wanted('node') && !nodeEnrollToken) {
    const output = await runKino('bootstrap', ['admin', 'nodes', 'enroll', '--name', 'node']);
    nodeEnrollToken = /kino_enroll_[0-9A-Za-z]{40}\.[0-9a-f]{64}/.exec(output)?.[0];
    assert.ok(nodeEnrollToken, `admin nodes enroll printed a token:\n${output}`);
  }
  await Promise.all([start('node', () => startKino('node')), start('delivery', () => startKino('delivery'))]);
}

/** Stops every process of the farm: Kino's first, then the services, the Temporal server before PostgreSQL. */
async function stopFarm(): Promise<void> {
  const order = [...kinoNames, ...[...backingNames].reverse()];
  for (const name of order) {
    await farm.running.get(name)?.stop();
    farm.running.delete(name);
  }
}

/** A fresh farm: new data directories on the same hosts. */
function newFarm(name: string): void {
  const dataDir = join(workDir, name);
  mkdirSync(join(dataDir, 'logs'), { recursive: true });
  farm = { dataDir, running: new Map() };
}

/** One line of the guide's blocks, run as described at the top of this file. */
async function runGuideLine(line: string): Promise<void> {
  const compose = /^docker compose -f deploy\/compose\.yaml (.*)$/.exec(line)?.[1];
  if (!compose) {
    assert.match(line, /^mkdir backup$/, `a line of the guide this test knows how to run: ${line}`);
    mkdirSync(join(workDir, 'backup'));
    return;
  }
  const up = /^up -d(?: --wait)?((?: [a-z0-9-]+)*)$/.exec(compose);
  if (up) return composeUp(up[1]!.split(' ').filter(Boolean));
  const exec = /^exec -T postgres (.*)$/.exec(compose);
  if (exec) {
    // The container's shell, with the server's socket as the image's default; the redirections are the operator's.
    const socketDir = join(farm.dataDir, 'postgres');
    await execFileAsync(hosts.postgres.runIn[0]!, [...hosts.postgres.runIn.slice(1), 'sh', '-c', exec[1]!], {
      cwd: workDir,
      env: {
        PATH: process.env.PATH ?? '',
        PGHOST: socketDir,
        PGPORT: String(hostPort(setting('api', 'DATABASE_URL')).port),
      },
    }).catch((error: Error & { stderr?: string }) => {
      throw new Error(`${line} failed:\n${error.stderr ?? error.message}`);
    });
    return;
  }
  const run = /^run --rm --no-deps --user "\$\(id -u\)" -v "\$PWD\/([^:"]+):([^"]+)" bootstrap (.*)$/.exec(compose);
  assert.ok(run, `a line of the guide this test knows how to run: ${line}`);
  const [, source, target, args] = run;
  await runKino(
    'bootstrap',
    args!
      .split(' ')
      .map((arg) =>
        arg === target || arg.startsWith(`${target}/`) ? join(workDir, source!) + arg.slice(target!.length) : arg,
      ),
  );
}

/** Every URI a playlist names: its lines, its init segment, its renditions (audio, captions). */
function playlistUris(playlist: string): string[] {
  return [
    ...playlist.split('\n').filter((line) => line && !line.startsWith('#')),
    ...[...playlist.matchAll(/#EXT-X-(?:MAP|MEDIA):.*?URI="([^"]+)"/g)].map((match) => match[1]!),
  ];
}

/**
 * Plays a video from delivery as a player fetches it: the master playlist, every playlist it names
 * (variants, captions), every file they name; then decodes every frame. Returns the captions' text
 * and the frames decoded.
 */
async function play(masterUrl: string): Promise<{ captions: string[]; frames: number }> {
  const fetchOk = async (url: string) => {
    const response = await fetch(url);
    assert.equal(response.status, 200, `GET ${url}`);
    return response;
  };
  const captions: string[] = [];
  const playlists = playlistUris(await (await fetchOk(masterUrl)).text()).map((uri) => new URL(uri, masterUrl).href);
  assert.ok(playlists.length > 0, `${masterUrl} names its variants`);
  for (const playlist of playlists) {
    for (const uri of playlistUris(await (await fetchOk(playlist)).text())) {
      const url = new URL(uri, playlist);
      const body = await (await fetchOk(url.href)).arrayBuffer();
      assert.ok(body.byteLength > 0, `${url.pathname} has bytes`);
      if (url.pathname.endsWith('.vtt')) captions.push(Buffer.from(body).toString('utf8'));
    }
  }
  return { captions, frames: await countDecodedFrames(masterUrl) };
}

interface FarmVideos {
  publicId: string;
  privateId: string;
  clipId: string;
}
let farmVideos: FarmVideos;

/** Uploads the source and processes it; resolves with the video id once it is ready. */
async function uploadAndProcess(name: string, allowPublicAccess: boolean): Promise<string> {
  const { orgId, envId } = installation;
  const bytes = await readFile(clipPath);
  const ticket = await client.uploads.createUrl(orgId, envId, {
    filename: name,
    fileSize: bytes.length,
    contentType: 'video/mp4',
  });
  await client.uploads.putFile(ticket, bytes, 'video/mp4');
  const { videoID } = await client.videos.process(orgId, envId, {
    storagePath: ticket.bucketPath,
    videoQuality: 'standard',
    compressionRatio: 'ultrafast',
    videoName: name,
    allowPublicAccess,
  });
  await waitForReady(videoID);
  return videoID;
}

async function waitForReady(videoId: string): Promise<void> {
  await waitFor(
    `video ${videoId} to be ready`,
    async () => {
      const { status } = await client.videos.get(installation.orgId, videoId);
      if (!status.transcoding && !status.ready)
        throw new WaitAbortedError(`video ${videoId} ended ${JSON.stringify(status)}`);
      return status.ready || undefined;
    },
    { timeoutMs: 180_000, intervalMs: 500 },
  );
}

/** Every video of the environment: its id and status. */
async function listVideos(): Promise<string[]> {
  const { videos } = await client.videos.list(installation.orgId, installation.envId, { pageSize: 50 });
  return videos.map((video) => `${video.id} ${video.status}`).sort();
}

/** What the analytics routes answer for the installation's organization (and each video). */
async function analyticsAnswers(): Promise<unknown> {
  const { orgId } = installation;
  return {
    usage: await client.analytics.usage(orgId, { periodDays: 30 }),
    daily: await client.analytics.daily(orgId),
    storage: await client.analytics.storage(orgId),
    distribution: await client.analytics.resolutionDistribution(orgId),
    resolution: Object.fromEntries(
      await Promise.all(
        Object.values(farmVideos).map(async (id) => [id, await client.analytics.resolution(orgId, id)] as const),
      ),
    ),
  };
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-backup-restore-'));
  network = createTestNetwork();
  for (const name of [...backingNames, ...kinoNames]) hosts[name] = network.addHost(name);
  network.nameHosts(hosts);
  services = renderCompose(makeEnvSecrets());
  // No proxy here (HTTPS through Caddy is the production-path test's): the addresses the API and the
  // orchestrator hand to clients are S3's and delivery's own, over http.
  for (const name of ['api', 'orchestrator']) {
    const environment = environmentOf(name);
    environment.DELIVERY_URL = `http://${hosts.delivery.address}:${setting('delivery', 'DELIVERY_PORT')}`;
    if ('S3_PUBLIC_ENDPOINT' in environment)
      environment.S3_PUBLIC_ENDPOINT = `http://${hosts.s3.address}:${hostPort(setting(name, 'S3_ENDPOINT')).port}`;
  }
  newFarm('farm');
  [clipPath] = await Promise.all([
    makeClip({ seconds: 3, width: 320, height: 240, fps: 25, audio: true, path: join(workDir, 'source.mp4') }),
    composeUp([]),
  ]);
  // The first organization, key and token, as the guide's step 4 makes them in bootstrap's container.
  installation = readBootstrapOutput(await runKino('bootstrap', ['admin', 'bootstrap']));
  client = new Kino({
    apiUrl: `http://${hosts.api.address}:${setting('api', 'API_PORT')}/v1/api`,
    apiKey: installation.apiKey,
    operatorToken: installation.operatorToken,
  });
  await waitForActiveNode(client, () => undefined);
}, 10 * 60_000);

afterAll(async () => {
  if (farm) await stopFarm();
  network?.remove();
  if (process.env.KINO_FARM_LOGS) process.stderr.write(`backup-restore kept in ${workDir}\n`);
  else await rm(workDir, { recursive: true, force: true });
});

test('a backup taken as the guide says restores into fresh services: every video plays, tokens verify, analytics answer the same', async () => {
  const [backupLines, restoreLines] = guideCommands();
  const { orgId } = installation;

  // The farm: a public video with captions, a private one, a clip of the first.
  const [publicId, privateId] = await Promise.all([
    uploadAndProcess('public.mp4', true),
    uploadAndProcess('private.mp4', false),
  ]);
  const caption = 'WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nBefore the backup\n';
  await client.videos.addCaption(orgId, publicId, { language: 'en', content: caption, default: true });
  // Just in time (the Compose file's default), a video turns ready with its ladder's last work still
  // running; a clip is cut from a complete ladder, so the call says 409 until then, as clients retry.
  const { videoID: clipId } = await waitFor(
    'the ladder complete, to cut a clip',
    () =>
      client.videos
        .createClip(orgId, publicId, { startTime: 0, endTime: 2 })
        .catch((error: unknown) =>
          error instanceof ConflictError && error.code === 'video_not_ready' ? undefined : Promise.reject(error),
        ),
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  await waitForReady(clipId);
  farmVideos = { publicId, privateId, clipId };

  // Each played from delivery (the private one with a signed URL), so ClickHouse has their rows.
  const deliveryUrl = setting('api', 'DELIVERY_URL');
  const { signed_url: signedBefore } = await client.playback.signedUrl(orgId, privateId, { expiration: '1h' });
  const masters: Record<keyof FarmVideos, string> = {
    publicId: `${deliveryUrl}/${publicId}/master.m3u8`,
    privateId: signedBefore,
    clipId: `${deliveryUrl}/${clipId}/master.m3u8`,
  };
  const before: Record<string, { captions: string[]; frames: number }> = {};
  for (const [key, url] of Object.entries(masters)) before[key] = await play(url);
  assert.ok(
    before.publicId!.captions.some((text) => text.includes('Before the backup')),
    'the caption track plays',
  );

  // Delivery ships its spooled rows when it stops; then the rollups catch up with the raw rows.
  await farm.running.get('delivery')!.stop();
  farm.running.delete('delivery');
  const clickhouse = new ClickHouseHttp(analyticsUrl());
  const [logged] = await clickhouse.query<{ rows: number }>('SELECT uniqExact(row_id) AS rows FROM segment_deliveries');
  await clickhouse.close();
  const rows = Number(logged?.rows);
  assert.ok(rows > 0, 'delivery logged the segments it served');
  await waitFor(
    'the analytics rollups to count every segment served',
    async () => {
      const [usage] = await client.analytics.usage(orgId, { periodDays: 30 });
      return usage?.totalSegmentsServed === rows || undefined;
    },
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  const analyticsBefore = await analyticsAnswers();
  const videosBefore = await listVideos();
  assert.equal(videosBefore.length, 3);
  // An object larger than one part of a restore (64 MiB), as a large source is: it goes back in parts.
  const large = randomBytes(65 * 1024 * 1024);
  await withBucket((storage) => storage.put('uploads/large-source.mp4', large, 'video/mp4'));
  const bucketBefore = await bucketListing();

  // The backup, as the guide gives it; then the farm is gone.
  for (const line of backupLines) await runGuideLine(line);
  await stopFarm();

  // The restore into fresh services on the same hosts, as the guide gives it.
  newFarm('restored');
  for (const line of restoreLines) await runGuideLine(line);
  assert.match(farm.bootstrapOutput!, /Organizations exist \(.*\): nothing created, no secrets made\./);
  await waitForActiveNode(client, () => undefined);

  // Analytics first, before anything plays again.
  assert.deepEqual(await analyticsAnswers(), analyticsBefore, 'the analytics routes answer as before the backup');
  assert.deepEqual(await listVideos(), videosBefore, 'every video is back, ready');
  assert.deepEqual(await bucketListing(), bucketBefore, 'every object is back, with its size and content type');
  const largeAfter = await withBucket((storage) => storage.get('uploads/large-source.mp4'));
  assert.ok(largeAfter?.equals(large), 'the object larger than a part is back, byte for byte');

  // A second restore changes nothing.
  await runGuideLine(restoreLines.find((line) => / admin restore /.test(line))!);
  assert.deepEqual(
    await analyticsAnswers(),
    analyticsBefore,
    'a second restore leaves the analytics answers as they were',
  );
  assert.deepEqual(await listVideos(), videosBefore);
  assert.deepEqual(await bucketListing(), bucketBefore);

  // Every video plays as before: the private one with the URL signed before the backup.
  for (const [key, url] of Object.entries(masters))
    assert.deepEqual(await play(url), before[key], `${key} plays as before`);
  const { signed_url: signedAfter } = await client.playback.signedUrl(orgId, privateId, { expiration: '1h' });
  assert.deepEqual(await play(signedAfter), before.privateId, 'a URL signed after the restore plays');
  const tampered = new URL(signedBefore);
  tampered.searchParams.set('token', `${tampered.searchParams.get('token')!.slice(0, -4)}AAAA`);
  assert.notEqual((await fetch(tampered)).status, 200, 'delivery checks the token: a tampered one is refused');

  // The Temporal server has the workflows that made them.
  const connection = await Connection.connect({
    address: `${hosts.temporal.address}:${hostPort(setting('api', 'TEMPORAL_ADDRESS')).port}`,
  });
  try {
    const temporal = new TemporalClient({ connection, namespace: setting('api', 'TEMPORAL_NAMESPACE') });
    for (const id of [publicId, privateId]) {
      const { status } = await temporal.workflow.getHandle(`video:${id}`).describe();
      assert.equal(status.name, 'COMPLETED', `the workflow of ${id} is in the restored history`);
    }
  } finally {
    await connection.close();
  }
});
