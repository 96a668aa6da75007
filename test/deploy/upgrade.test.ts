// The upgrade from the previous release to this tree, in place, as docs/production.md ("Upgrades")
// has an operator do it, on one set of real backing services that outlive it:
//
//   1. the previous release: CHANGELOG.md's latest release names its commit; the test takes that
//      commit's files from git beside the tree (`git archive`: a clone carries the commit, not
//      always its tag), installs its lockfile's npm packages (below) and runs its own `kino` (its
//      cli/bin/kino.js, which in a checkout runs the release's sources, as its dev stack did);
//   2. PostgreSQL, Temporal's server, SeaweedFS and ClickHouse, with the credentials an .env made
//      from deploy/.env.example gives; every process of both releases gets the same environment;
//   3. the previous release's bootstrap, API, orchestrator, encode node and delivery, and three
//      videos sent through the SDK: `whole` processed to the end; `jit`, in an environment with
//      just-in-time segments, `ready` with its first segment played from delivery while the rest of
//      its ladder is still being made; `midEncode`, published whole, whose encode is running on the
//      node (its slot's lease and the node's own log say so);
//   4. SIGTERM to every process of the previous release at once, as `docker compose stop` or a
//      rollout sends it (the node drains, the orchestrator's worker cancels what it runs);
//   5. this tree's `kino config check` of every process on the environment as it was, its bootstrap
//      (the migrations), then its processes on the same services: the previous release's workflows
//      go on in this tree's worker (their recorded histories replayed by this tree's workflow code:
//      a change without its `patched()`, or one that reorders commands, fails here; the histories
//      are saved, and kept with KINO_FARM_LOGS=1, for a replay fixture of orchestrator/src/fixtures);
//   6. every video reaches `ready` with its whole ladder, and plays to its end from delivery: every
//      segment of every variant, every frame.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import temporalProto from '@temporalio/proto';
import { Kino } from '@kino/sdk';
import { repoRoot } from '@kino/infra';
import { freePort, startProcess, waitFor, WaitAbortedError, type ManagedProcess } from '@kino/dev';
import { workflowIds } from '@kino/proto/contract';
import { countDecodedFrames, countFramesInFile, makeClip } from '@kino/test/support/media';
import { makeEnvSecrets } from '@kino/test/support/deployment-files';
import type { NetworkHost } from '@kino/test/support/network-hosts';
import {
  connects,
  startBackingServices,
  waitForActiveNode,
  type BackingServiceSettings,
  type FirstInstallation,
} from '@kino/test/support/production-farm';

const execFileAsync = promisify(execFile);
const { History } = temporalProto.temporal.api.history.v1;

/** The latest release of CHANGELOG.md and the commit its section names (`Commit <40 hex digits>`). */
async function previousRelease(): Promise<{ version: string; commit: string }> {
  const changelog = await readFile(join(repoRoot, 'CHANGELOG.md'), 'utf8');
  const [, version, body] = /^## \[(\d+\.\d+\.\d+)\][^\n]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(changelog) ?? [];
  const commit = /^Commit ([0-9a-f]{40})\b/m.exec(body ?? '')?.[1];
  assert.ok(version && commit, 'CHANGELOG.md names its latest release and that release\'s commit ("Commit <hash>")');
  return { version, commit };
}

/**
 * What the previous release's `kino admin bootstrap` printed on a first run: it migrated and made
 * the first organization in one run (this tree's bootstrap service only prepares: readBootstrapOutput).
 */
function readFirstRunOutput(output: string): FirstInstallation {
  assert.match(output, /PostgreSQL: \d+ migrations applied\./);
  const [, orgId, envId] = /Created organization (\S+) \(.*\) with environment (\S+) \(/.exec(output) ?? [];
  const [, apiKey] = /API key \(full, live, \S+\): (\S+)/.exec(output) ?? [];
  const [, operatorToken] = /Operator token \(\S+\): (\S+)/.exec(output) ?? [];
  assert.ok(
    orgId && envId && apiKey && operatorToken,
    `bootstrap printed the first organization and secrets:\n${output}`,
  );
  return { orgId, envId, apiKey, operatorToken };
}

/** One release's `kino`: the program every process and operator command of that release runs. */
interface Release {
  name: string;
  kinoJs: string;
}

/** The machine's own loopback as the one host of every service (production-farm's starters take a host). */
const loopback: NetworkHost = { name: 'loopback', namespace: '', link: '', address: '127.0.0.1', runIn: [] };

let workDir: string;
let previous: Release;
let stopBackingServices: (() => Promise<void>) | undefined;
let database: pg.Pool;
let temporal: Client;
/** The processes of the release running now, by part, with their logs. */
const running = new Map<string, { process: ManagedProcess; logFile: string }>();
const clips = {} as Record<'whole' | 'jit' | 'midEncode', string>;
/** Each process's environment, the same for both releases (the .env and the file outlive an upgrade). */
let environments: Record<'bootstrap' | 'api' | 'orchestrator' | 'node' | 'delivery', Record<string, string>>;
let apiUrl: string;
let deliveryUrl: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-upgrade-'));
  const { version, commit } = await previousRelease();
  const previousTree = join(workDir, `kino-${version}`);
  previous = { name: `release ${version}`, kinoJs: join(previousTree, 'cli', 'bin', 'kino.js') };

  // The operator's .env: every secret made with the command deploy/.env.example gives for it.
  const dotEnv = makeEnvSecrets();
  const portNames = [
    'postgres',
    'temporal',
    's3',
    'clickhouse',
    'api',
    'delivery',
    'registry',
    'relay',
    'orchestratorMetrics',
    'nodeMetrics',
  ] as const;
  const ports = {} as Record<(typeof portNames)[number], number>;
  for (const name of portNames) ports[name] = await freePort();
  const backing: BackingServiceSettings = {
    postgres: {
      host: loopback,
      port: ports.postgres,
      database: 'kino',
      user: 'kino',
      password: dotEnv.POSTGRES_PASSWORD!,
    },
    temporal: { host: loopback, port: ports.temporal },
    s3: {
      host: loopback,
      port: ports.s3,
      accessKeyId: dotEnv.S3_ACCESS_KEY_ID!,
      secretAccessKey: dotEnv.S3_SECRET_ACCESS_KEY!,
    },
    clickhouse: { host: loopback, port: ports.clickhouse, user: 'kino', password: dotEnv.CLICKHOUSE_PASSWORD! },
  };
  apiUrl = `http://127.0.0.1:${ports.api}/v1/api`;
  deliveryUrl = `http://127.0.0.1:${ports.delivery}`;
  // As deploy/compose.yaml gives each service its part of the .env (on loopback, not service names).
  // What the image gives every container beside the file's environment: NODE_ENV as its ENV sets it.
  const machine = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/', NODE_ENV: 'production' };
  const databaseEnv = { DATABASE_URL: `postgres://kino:${dotEnv.POSTGRES_PASSWORD}@127.0.0.1:${ports.postgres}/kino` };
  const storageEnv = {
    S3_ENDPOINT: `http://127.0.0.1:${ports.s3}`,
    S3_BUCKET: 'kino',
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: dotEnv.S3_ACCESS_KEY_ID!,
    S3_SECRET_ACCESS_KEY: dotEnv.S3_SECRET_ACCESS_KEY!,
    S3_FORCE_PATH_STYLE: 'true',
  };
  const analyticsEnv = { CLICKHOUSE_URL: `http://kino:${dotEnv.CLICKHOUSE_PASSWORD}@127.0.0.1:${ports.clickhouse}` };
  const temporalEnv = { TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`, TEMPORAL_NAMESPACE: 'default' };
  const processEnv = { METRICS_TOKEN: dotEnv.METRICS_TOKEN!, LOG_LEVEL: 'info' };
  // The shared farm token of 0.1.0's .env (this tree's files enroll nodes instead), made as 0.1.0's
  // .env.example made it.
  const nodeToken = randomBytes(32).toString('hex');
  environments = {
    bootstrap: { ...machine, ...databaseEnv, ...storageEnv, ...analyticsEnv },
    api: {
      ...machine,
      ...databaseEnv,
      ...temporalEnv,
      ...storageEnv,
      ...analyticsEnv,
      ...processEnv,
      API_HOST: '127.0.0.1',
      API_PORT: String(ports.api),
      S3_PUBLIC_ENDPOINT: storageEnv.S3_ENDPOINT,
      DELIVERY_URL: deliveryUrl,
      KINO_KEY_ENCRYPTION_KEY: dotEnv.KINO_KEY_ENCRYPTION_KEY!,
    },
    orchestrator: {
      ...machine,
      ...databaseEnv,
      ...temporalEnv,
      ...storageEnv,
      ...processEnv,
      REGISTRY_HOST: '127.0.0.1',
      REGISTRY_PORT: String(ports.registry),
      RELAY_PORT: String(ports.relay),
      ORCHESTRATOR_METRICS_PORT: String(ports.orchestratorMetrics),
      // The farm keeps its nodes on the shared token, as the deployment files do (Upgrades, step 2).
      REGISTRY_ACCEPT_NODE_TOKEN: 'true',
      NODE_TOKEN: nodeToken,
      NODE_HEARTBEAT_TIMEOUT_MS: '10000',
      DELIVERY_URL: deliveryUrl,
      KINO_KEY_ENCRYPTION_KEY: dotEnv.KINO_KEY_ENCRYPTION_KEY!,
    },
    node: {
      ...machine,
      ...processEnv,
      KINO_CONTROL_PLANE: `127.0.0.1:${ports.registry}`,
      NODE_TOKEN: nodeToken,
      NODE_HOST: '127.0.0.1',
      NODE_METRICS_PORT: String(ports.nodeMetrics),
      // Two slots: the whole encode and the just-in-time runs side by side. One thread each: the
      // encodes last long enough to be caught running, and leave a core to the rest of the machine.
      NODE_SLOTS: '2',
      NODE_FFMPEG_THREADS: '1',
      NODE_WORK_DIR: join(workDir, 'node-work'),
    },
    delivery: {
      ...machine,
      ...databaseEnv,
      ...storageEnv,
      ...analyticsEnv,
      ...processEnv,
      DELIVERY_HOST: '127.0.0.1',
      DELIVERY_PORT: String(ports.delivery),
      CONTROL_PLANE_URL: apiUrl,
      DELIVERY_CACHE_DIR: join(workDir, 'delivery-cache'),
      // A volume in Compose: the spool outlives the container, and the upgrade.
      DELIVERY_SPOOL_DIR: join(workDir, 'delivery-spool'),
    },
  };

  const installPrevious = async () => {
    await mkdir(previousTree, { recursive: true });
    await execFileAsync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: repoRoot }).catch(() => {
      throw new Error(
        `commit ${commit} (release ${version}) is not in this clone: git fetch it (a shallow clone lacks it)`,
      );
    });
    await execFileAsync('sh', ['-c', `git archive --format=tar ${commit} | tar -x -C "${previousTree}"`], {
      cwd: repoRoot,
      maxBuffer: 16 << 20,
    });
    const started = Date.now();
    // Its lockfile's packages, as `npm ci` installs them: most are this tree's at the same versions,
    // so npm starts from a copy of this tree's node_modules (a copy, not links: npm rewrites files of
    // it in place) and replaces, adds and removes what the release's lockfile says. The same
    // packages, versions and workspace links as `npm ci` made (compared once, package by package),
    // for 9 CPU-s where `npm ci` took 43.
    await execFileAsync('cp', ['-a', join(repoRoot, 'node_modules'), join(previousTree, 'node_modules')]);
    await execFileAsync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: previousTree,
      maxBuffer: 64 << 20,
    });
    process.stderr.write(`upgrade test: the install of release ${version} took ${Date.now() - started} ms\n`);
  };
  const [installed, services, ...made] = await Promise.allSettled([
    installPrevious(),
    startBackingServices(backing, join(workDir, 'services')),
    // `whole`: one segment, processed to the end before the upgrade.
    makeClip({ seconds: 4, width: 320, height: 180, fps: 30, path: join(workDir, 'whole.mp4') }),
    // `jit`: its first 6 s segment, then runs of 12 s (3 of them), each several seconds of work.
    makeClip({ seconds: 42, width: 640, height: 360, fps: 30, path: join(workDir, 'jit.mp4') }),
    // `midEncode`: one encode of its whole ladder (under the 30 s at which chunks begin), about 20 s of it.
    makeClip({ seconds: 28, width: 640, height: 360, fps: 30, path: join(workDir, 'mid-encode.mp4') }),
  ]);
  if (services.status === 'fulfilled') stopBackingServices = services.value;
  for (const result of [installed, services, ...made]) if (result.status === 'rejected') throw result.reason;
  const [whole, jit, midEncode] = made.map((result) => (result as PromiseFulfilledResult<string>).value);
  Object.assign(clips, { whole, jit, midEncode });
  database = new pg.Pool({ connectionString: environments.api.DATABASE_URL, max: 2 });
  // An idle client learns of PostgreSQL's shutdown at the end as an error event: nothing to act on.
  database.on('error', () => undefined);
  temporal = new Client({ connection: await Connection.connect({ address: environments.api.TEMPORAL_ADDRESS! }) });
}, 240_000);

afterAll(async () => {
  try {
    await Promise.all([...running.values()].map((part) => part.process.stop()));
    await database?.end();
    await temporal?.connection.close();
    await stopBackingServices?.();
  } finally {
    if (process.env.KINO_FARM_LOGS) process.stderr.write(`upgrade test: logs and histories kept in ${workDir}\n`);
    else await rm(workDir, { recursive: true, force: true });
  }
});

function logFile(release: Release, name: string): string {
  return join(workDir, 'logs', `${release === previous ? 'previous' : 'current'}-${name}.log`);
}

/** `kino <args>` of a release, run to completion as an operator runs it: its output, or an error with it. */
async function runKino(release: Release, args: string[], environment: Record<string, string>): Promise<string> {
  const { stdout, stderr } = await execFileAsync(process.execPath, [release.kinoJs, ...args], {
    env: environment,
  }).catch((error: Error & { stdout?: string; stderr?: string }) => {
    throw new Error(`${release.name}: \`kino ${args.join(' ')}\` failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  });
  return `${stdout}${stderr}`;
}

/** A check for waits: ends the wait, with the end of its log, once the part's process has exited. */
async function assertRunning(name: string): Promise<void> {
  const part = running.get(name);
  if (!part) throw new WaitAbortedError(`${name} was never started`);
  const { exitCode, signalCode } = part.process.child;
  if (exitCode !== null || signalCode !== null) {
    const log = await readFile(part.logFile, 'utf8').catch(() => '(no log)');
    throw new WaitAbortedError(`${part.process.name} exited (${exitCode ?? signalCode}):\n${log.slice(-4000)}`);
  }
}

async function assertAllRunning(names: readonly string[]): Promise<void> {
  for (const name of names) await assertRunning(name);
}

/** The API, orchestrator, delivery and an encode node of a release, each ready. */
async function startRelease(release: Release, installation: FirstInstallation): Promise<Kino> {
  const start = (name: keyof typeof environments, args: string[]) => {
    const log = logFile(release, name);
    const child = startProcess(`${release.name}: ${name}`, process.execPath, [release.kinoJs, ...args], {
      env: environments[name],
      logFile: log,
    });
    running.set(name, { process: child, logFile: log });
  };
  start('api', ['api']);
  start('orchestrator', ['orchestrator']);
  start('delivery', ['delivery']);
  await waitFor(
    `${release.name}: the API to report every dependency healthy`,
    async () => {
      await assertRunning('api');
      return (await fetch(`${apiUrl}/health`)).status === 200 || undefined;
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  );
  await waitFor(
    `${release.name}: delivery to answer /health`,
    async () => {
      await assertRunning('delivery');
      return (await fetch(`${deliveryUrl}/health`)).ok || undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  // A node that finds no registry exits (Compose's restart policy brings it back): start it once the registry listens.
  const registry = environments.node.KINO_CONTROL_PLANE!;
  await waitFor(
    `${release.name}: the orchestrator's registry to listen`,
    async () => {
      await assertRunning('orchestrator');
      const [host, port] = registry.split(':');
      return connects(host!, Number(port));
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  );
  start('node', ['node', 'start']);
  const client = new Kino({ apiUrl, apiKey: installation.apiKey, operatorToken: installation.operatorToken });
  // waitForActiveNode's check is synchronous: the processes' state, then the API's view.
  await waitFor(`${release.name}: the encode node to start`, async () => {
    await assertAllRunning(['api', 'orchestrator', 'node']);
    return true;
  });
  await waitForActiveNode(client, () => {
    for (const name of ['api', 'orchestrator', 'node']) {
      const { exitCode, signalCode } = running.get(name)!.process.child;
      if (exitCode !== null || signalCode !== null) throw new WaitAbortedError(`${release.name}: ${name} exited`);
    }
  });
  return client;
}

/** Through the SDK, as a user sends one: an upload URL, the PUT to storage, the process call. */
async function submitVideo(client: Kino, orgId: string, envId: string, clipPath: string): Promise<string> {
  const clip = await readFile(clipPath);
  const ticket = await client.uploads.createUrl(orgId, envId, {
    filename: 'clip.mp4',
    fileSize: clip.length,
    contentType: 'video/mp4',
  });
  await client.uploads.putFile(ticket, clip, 'video/mp4');
  const { videoID } = await client.videos.process(orgId, envId, {
    storagePath: ticket.bucketPath,
    videoQuality: 'standard',
    // x264's `slower` on one thread: an encode of seconds, to be caught running.
    compressionRatio: 'slower',
    videoName: clipPath.split('/').pop()!,
    allowPublicAccess: false,
  });
  return videoID;
}

async function videoRow(
  videoId: string,
): Promise<{ status: string; segments_pending: boolean; failure_reason: string | null }> {
  const { rows } = await database.query<{ status: string; segments_pending: boolean; failure_reason: string | null }>(
    'select status, segments_pending, failure_reason from videos where id = $1',
    [videoId],
  );
  assert.ok(rows[0], `video ${videoId} is in the database`);
  return rows[0];
}

/**
 * Waits for the video's processVideo workflow to complete. A workflow task that fails (this tree's
 * workflow code replaying a history it does not match) ends the wait with Temporal's reason.
 */
async function waitForWorkflow(videoId: string, timeoutMs: number): Promise<void> {
  const handle = temporal.workflow.getHandle(workflowIds.processVideo(videoId));
  await waitFor(
    `video ${videoId}'s workflow to complete`,
    async () => {
      const { status } = await handle.describe();
      if (status.name === 'COMPLETED') return true;
      if (status.name !== 'RUNNING') throw new WaitAbortedError(`video ${videoId}'s workflow ended ${status.name}`);
      const history = await handle.fetchHistory();
      const failed = history.events?.findLast((event) => event.workflowTaskFailedEventAttributes);
      if (failed) {
        const { cause, failure } = failed.workflowTaskFailedEventAttributes!;
        throw new WaitAbortedError(
          `video ${videoId}'s workflow task failed (${String(cause)}): ${failure?.message ?? 'no message'}; ` +
            `the previous release's histories are in ${workDir}/histories (kept with KINO_FARM_LOGS=1)`,
        );
      }
      return undefined;
    },
    { timeoutMs, intervalMs: 1000 },
  );
}

/** A video's processVideo history as protobuf's JSON mapping (orchestrator/src/workflow-replay.test.ts reads it). */
async function saveHistory(name: string, videoId: string): Promise<void> {
  const history = await temporal.workflow.getHandle(workflowIds.processVideo(videoId)).fetchHistory();
  const json = History.toObject(History.fromObject(history), { longs: String, enums: String, bytes: String });
  await mkdir(join(workDir, 'histories'), { recursive: true });
  await writeFile(join(workDir, 'histories', `${name}.history.json`), JSON.stringify(json, null, 2));
}

/** The video's signed master playlist, its variants' playlists and every segment: bytes each, every frame decoded. */
async function assertPlaysToTheEnd(client: Kino, orgId: string, videoId: string, clipPath: string): Promise<void> {
  const { signed_url: masterUrl } = await client.playback.signedUrl(orgId, videoId, { expiration: '1h' });
  const fetchText = async (url: string) => {
    const response = await fetch(url);
    assert.equal(response.status, 200, `GET ${url}`);
    return response.text();
  };
  const uris = (playlist: string) => [
    ...playlist.split('\n').filter((line) => line && !line.startsWith('#')),
    ...[...playlist.matchAll(/URI="([^"]+)"/g)].map((match) => match[1]!),
  ];
  const variants = uris(await fetchText(masterUrl)).map((uri) => new URL(uri, masterUrl).href);
  assert.ok(variants.length > 0, `video ${videoId}: the master playlist names its variants`);
  for (const variant of variants) {
    for (const uri of uris(await fetchText(variant))) {
      const response = await fetch(new URL(uri, variant));
      assert.equal(response.status, 200, `video ${videoId}: GET ${uri} of ${variant}`);
      assert.ok((await response.arrayBuffer()).byteLength > 0, `video ${videoId}: ${uri} has bytes`);
    }
  }
  assert.equal(
    await countDecodedFrames(masterUrl),
    await countFramesInFile(clipPath),
    `video ${videoId}: every frame plays from delivery`,
  );
}

/** The first segment of the video's first variant, fetched from delivery as a player starts. */
async function fetchFirstSegment(client: Kino, orgId: string, videoId: string): Promise<void> {
  const { signed_url: masterUrl } = await client.playback.signedUrl(orgId, videoId, { expiration: '1h' });
  const master = await (await fetch(masterUrl)).text();
  const variant = new URL(
    master.split('\n').find((line) => line && !line.startsWith('#'))!,
    masterUrl,
  );
  const playlist = await (await fetch(variant)).text();
  const segment = new URL(
    playlist.split('\n').find((line) => line && !line.startsWith('#'))!,
    variant,
  );
  const response = await fetch(segment);
  assert.equal(response.status, 200, `the first segment of video ${videoId} plays: GET ${segment.href}`);
  assert.ok((await response.arrayBuffer()).byteLength > 0);
}

test('a farm of the previous release, with a video processed, one ready just in time with the rest to make and one mid-encode, upgraded in place: every video ready and played to its end', async () => {
  const current: Release = { name: 'this tree', kinoJs: join(repoRoot, 'cli', 'bin', 'kino.js') };

  // The previous release: bootstrap (the first organization, environment, key and token), its
  // processes, and a second environment with just-in-time segments (the farm's default, on), the
  // first one publishing whole.
  const installation = readFirstRunOutput(await runKino(previous, ['admin', 'bootstrap'], environments.bootstrap));
  const { orgId, envId } = installation;
  let client = await startRelease(previous, installation);
  const jitEnv = JSON.parse(
    await runKino(
      previous,
      ['admin', 'env', 'create', '--org', orgId, '--name', 'just-in-time', '--json'],
      environments.bootstrap,
    ),
  ) as { id: string };
  await client.environments.update(orgId, envId, { justInTime: false });

  const whole = await submitVideo(client, orgId, envId, clips.whole);
  await waitForWorkflow(whole, 120_000);
  assert.deepEqual(await videoRow(whole), { status: 'ready', segments_pending: false, failure_reason: null });

  const midEncode = await submitVideo(client, orgId, envId, clips.midEncode);
  const jit = await submitVideo(client, orgId, jitEnv.id, clips.jit);
  // The encode of `midEncode` running: its slot's lease, and the node's own log saying it started that job.
  const nodeLog = logFile(previous, 'node');
  await waitFor(
    `the encode of video ${midEncode} to run on the node`,
    async () => {
      await assertAllRunning(['api', 'orchestrator', 'node']);
      const { rows } = await database.query<{ job: string }>('select job from node_leases where video_id = $1', [
        midEncode,
      ]);
      if (rows.length === 0) return undefined;
      const started = (await readFile(nodeLog, 'utf8'))
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg?: string; jobId?: string })
        .filter((entry) => entry.msg === 'encode started');
      return rows.some((row) => started.some((entry) => entry.jobId === row.job)) || undefined;
    },
    { timeoutMs: 120_000, intervalMs: 100 },
  );
  // `jit` ready with its first segment, which a viewer plays from delivery; the rest is still to make.
  await waitFor(
    `video ${jit} to be ready just in time`,
    async () => {
      const row = await videoRow(jit);
      if (row.status === 'failed') throw new WaitAbortedError(`video ${jit} failed: ${row.failure_reason}`);
      return row.status === 'ready' || undefined;
    },
    { timeoutMs: 120_000, intervalMs: 100 },
  );
  await fetchFirstSegment(client, orgId, jit);

  // The upgrade: the previous release stopped as Compose or a rollout stops it, every process at once.
  await Promise.all(['api', 'orchestrator', 'node', 'delivery'].map((name) => running.get(name)!.process.stop(60_000)));
  running.clear();
  assert.equal(
    (await videoRow(midEncode)).status,
    'transcoding',
    'the previous release stopped with the encode of one video unfinished (a source too short for this test if not)',
  );
  assert.deepEqual(
    await videoRow(jit),
    { status: 'ready', segments_pending: true, failure_reason: null },
    'the previous release stopped with a just-in-time video ready and segments still to make',
  );

  // The previous release's histories as it recorded them, in the format of the replay fixtures
  // (orchestrator/src/fixtures): a workflow that fails to replay below names where they are.
  for (const [name, videoId] of Object.entries({ whole, midEncode, jit })) await saveHistory(name, videoId);

  // docs/production.md, Upgrades step 3: every process of this tree takes the settings as they are.
  await Promise.all(
    (['bootstrap', 'api', 'orchestrator', 'node', 'delivery'] as const).map((name) =>
      runKino(current, ['config', 'check', name], environments[name]),
    ),
  );

  // This tree's bootstrap, as its service runs it, migrates the database (and ClickHouse), and creates nothing.
  const migrated = await runKino(current, ['admin', 'bootstrap', '--prepare-only'], environments.bootstrap);
  assert.match(migrated, /PostgreSQL: \d+ migrations applied\./, migrated);
  assert.match(migrated, /Organizations exist \(.*\): nothing created, no secrets made\./, migrated);
  client = await startRelease(current, installation);

  // Every video ends `ready` with its whole ladder, its workflow completed by this tree's worker.
  for (const videoId of [midEncode, jit]) await waitForWorkflow(videoId, 300_000);
  for (const videoId of [whole, midEncode, jit])
    assert.deepEqual(
      await videoRow(videoId),
      { status: 'ready', segments_pending: false, failure_reason: null },
      `video ${videoId}`,
    );
  await assertPlaysToTheEnd(client, orgId, whole, clips.whole);
  await assertPlaysToTheEnd(client, orgId, midEncode, clips.midEncode);
  await assertPlaysToTheEnd(client, orgId, jit, clips.jit);
});
