// The production path as a self-hoster walks it (docs/production.md, step by step), on real services,
// every part on a host of its own named as in deploy/compose.yaml (network namespaces whose
// /etc/hosts map the compose service names, as a Compose network's DNS does):
//
//   1. the image's two stages: `npm run build`, then deploy/assemble-runtime.mjs into a directory
//      (what the image holds at /opt/kino); every Kino process runs from it with plain node;
//   2. .env from deploy/.env.example, every value kept except the public addresses (below);
//   3. `docker compose up`: PostgreSQL, Temporal (the dev server), SeaweedFS (checking signatures
//      against the .env's keys, as compose starts it) and ClickHouse with the file's credentials;
//      then each Kino service (bootstrap, api, orchestrator, node, delivery) with EXACTLY the
//      environment the file gives it plus what the image sets (its ENV line) and PATH/HOME, its
//      command from the file, after `kino config check <process>` passes on that environment;
//   4. bootstrap prints the first API key and operator token;
//   5. a client outside those hosts (this process) uploads a video to the presigned URL the API
//      hands out (on S3_PUBLIC_ENDPOINT, the published S3 port), processes it, waits for `ready`;
//   6. plays it from delivery with a signed URL: master playlist, every variant, every segment, and
//      every frame decoded.
// Then the Kubernetes manifests: every Deployment's and the Job's environment (ConfigMap, Secret,
// env) passes `kino config check` for its process.
//
// A container's /var/lib/kino (delivery's cache and spool, a node's work directory) is a directory
// of the test bind-mounted there in a mount namespace of the process's own.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ListBucketsCommand } from '@aws-sdk/client-s3';
import pg from 'pg';
import { Kino } from '@kino/sdk';
import { createS3Client, parseConfig, repoRoot, storageConfigShape } from '@kino/infra';
import {
  startClickHouse,
  startPostgres,
  startProcess,
  startSeaweed,
  startTemporal,
  waitFor,
  WaitAbortedError,
  type ManagedProcess,
} from '@kino/dev';
import { countDecodedFrames, countFramesInFile, makeClip } from '@kino/test/support/media';
import { createTestNetwork, type NetworkHost, type TestNetwork } from '@kino/test/support/network-hosts';
import {
  deployDir,
  kinoImage,
  kinoProcessOf,
  kubernetesWorkloads,
  readEnvFile,
  readKubernetesObjects,
  renderCompose,
  type ComposeService,
} from '@kino/test/support/deployment-files';

const execFileAsync = promisify(execFile);

/** Every compose service that runs on a host of its own here (temporal-schema and temporal-namespace: the dev server needs neither). */
const hostNames = ['postgres', 'temporal', 'clickhouse', 's3', 'bootstrap', 'api', 'orchestrator', 'node', 'delivery'] as const;
type HostName = (typeof hostNames)[number];
const kinoServices = ['api', 'orchestrator', 'node', 'delivery'] as const;

let network: TestNetwork;
const hosts = {} as Record<HostName, NetworkHost>;
let workDir: string;
let kinoJs: string;
let services: Record<string, ComposeService>;
let imageEnv: Record<string, string>;
let createdVarLibKino = false;
const stops: Array<() => Promise<void>> = [];
const kinoProcesses: Record<string, ManagedProcess> = {};
let clipPath: string;

/** The image's own environment (the final stage's ENV line of deploy/Dockerfile), under the file's. */
function imageEnvironment(): Record<string, string> {
  const envLines = readFileSync(join(deployDir, 'Dockerfile'), 'utf8').split('\n').filter((line) => line.startsWith('ENV '));
  return Object.fromEntries(envLines.at(-1)!.slice(4).trim().split(/\s+/).map((pair) => pair.split('=') as [string, string]));
}

/** What a Kino container's process gets: the image's ENV, the file's environment, PATH and HOME. */
function containerEnv(environment: Record<string, string>): Record<string, string> {
  return { ...imageEnv, ...environment, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/' };
}

/** `kino config check <process>` from the assembled runtime: the output when it refuses, else undefined. */
async function configProblems(processName: string, environment: Record<string, string>): Promise<string | undefined> {
  return execFileAsync(process.execPath, [kinoJs, 'config', 'check', processName], { env: containerEnv(environment) }).then(
    () => undefined,
    (error: Error & { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`.trim() || error.message,
  );
}

/** The compose service's command on its host, /var/lib/kino a directory of its own. */
function containerRunIn(name: HostName): string[] {
  const state = join(workDir, 'var-lib-kino', name);
  mkdirSync(state, { recursive: true });
  return [...hosts[name].runIn, 'unshare', '--mount', '--propagation', 'private', 'sh', '-c', 'mount --bind "$0" /var/lib/kino && exec "$@"', state];
}

function hostPort(address: string): { host: string; port: number } {
  const url = new URL(address.includes('://') ? address : `tcp://${address}`);
  return { host: url.hostname, port: Number(url.port) };
}

/** Whether a TCP connection to host:port is accepted. */
function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1000 });
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-production-path-'));
  const runtimeDir = join(workDir, 'runtime');
  kinoJs = join(runtimeDir, 'cli', 'bin', 'kino.js');
  imageEnv = imageEnvironment();
  if (!existsSync('/var/lib/kino')) {
    mkdirSync('/var/lib/kino');
    createdVarLibKino = true;
  }
  network = createTestNetwork();
  for (const name of hostNames) hosts[name] = network.addHost(name);
  network.nameHosts(hosts);

  // The only values not from .env.example: where the test client (this machine) reaches the
  // published ports, i.e. the addresses of the hosts that publish them. Every other value is the file's.
  const dotEnv = {
    ...readEnvFile(join(deployDir, '.env.example')),
    S3_PUBLIC_ENDPOINT: `http://${hosts.s3.address}:8333`,
    PUBLIC_DELIVERY_URL: `http://${hosts.delivery.address}:7081`,
  };
  services = renderCompose(dotEnv);

  // The image (its build stage) while the backing services start.
  const image = (async () => {
    await execFileAsync('npm', ['run', 'build'], { cwd: repoRoot, maxBuffer: 64 << 20 });
    await execFileAsync(process.execPath, [join(deployDir, 'assemble-runtime.mjs'), runtimeDir], { cwd: repoRoot, maxBuffer: 64 << 20 });
  })();

  // Each backing service where the Kino services' environment says it is, with the file's credentials.
  const kinoEnv = services.bootstrap!.environment;
  const database = new URL(kinoEnv.DATABASE_URL!);
  const storage = hostPort(kinoEnv.S3_ENDPOINT!);
  const analytics = hostPort(kinoEnv.CLICKHOUSE_URL!);
  const temporal = hostPort(services.api!.environment.TEMPORAL_ADDRESS!);
  assert.deepEqual([database.hostname, temporal.host, storage.host, analytics.host], ['postgres', 'temporal', 's3', 'clickhouse']);
  const log = (name: string) => join(workDir, 'logs', `${name}.log`);
  const started = await Promise.all([
    startPostgres({
      dataDir: join(workDir, 'postgres'),
      port: Number(database.port),
      host: hosts.postgres.address,
      runIn: hosts.postgres.runIn,
      database: services.postgres!.environment.POSTGRES_DB,
      login: { user: services.postgres!.environment.POSTGRES_USER!, password: services.postgres!.environment.POSTGRES_PASSWORD! },
      durable: false,
      logFile: log('postgres'),
    }),
    startTemporal({ port: temporal.port, host: hosts.temporal.address, runIn: hosts.temporal.runIn, logFile: log('temporal') }),
    startSeaweed({
      dataDir: join(workDir, 's3'),
      s3Port: storage.port,
      host: hosts.s3.address,
      runIn: hosts.s3.runIn,
      bucket: null,
      credentialsFrom: 'environment',
      accessKeyId: services.s3!.environment.AWS_ACCESS_KEY_ID,
      secretAccessKey: services.s3!.environment.AWS_SECRET_ACCESS_KEY,
      logFile: log('s3'),
    }),
    startClickHouse({
      dataDir: join(workDir, 'clickhouse'),
      httpPort: analytics.port,
      host: hosts.clickhouse.address,
      runIn: hosts.clickhouse.runIn,
      login: { user: services.clickhouse!.environment.CLICKHOUSE_USER!, password: services.clickhouse!.environment.CLICKHOUSE_PASSWORD! },
      logFile: log('clickhouse'),
    }),
  ]);
  for (const service of started) stops.unshift(() => service.stop());
  clipPath = await makeClip({ seconds: 4, width: 640, height: 360, fps: 30, audio: true, path: join(workDir, 'clip.mp4') });
  await image;
}, 300_000);

afterAll(async () => {
  try {
    await Promise.all(Object.values(kinoProcesses).map((child) => child.stop()));
    for (const stop of stops) await stop();
  } finally {
    network?.remove();
    if (createdVarLibKino && readdirSync('/var/lib/kino').length === 0) rmdirSync('/var/lib/kino');
    await rm(workDir, { recursive: true, force: true });
  }
});

test('from deploy/compose.yaml and .env.example to a played video: bootstrap, upload through the published S3 port, ready, played from delivery', async () => {
  // Every Kino service of the file runs the image, with the command kino.js takes.
  const kino = Object.entries(services).filter(([, service]) => service.image === kinoImage);
  assert.deepEqual(kino.map(([name]) => name).sort(), ['api', 'bootstrap', 'delivery', 'node', 'orchestrator']);

  // Each service's environment as its process reads it: a variable missing from the file stops here, named.
  for (const [name, service] of kino) {
    const processName = kinoProcessOf(service.command!);
    const problems = await configProblems(processName, service.environment);
    assert.equal(problems, undefined, `compose service ${name}: \`kino config check ${processName}\` refuses the environment deploy/compose.yaml gives it:\n${problems}`);
  }

  // The backing services hold the file's credentials and check them: wrong ones are refused.
  const wrongDatabase = new URL(services.bootstrap!.environment.DATABASE_URL!);
  wrongDatabase.hostname = hosts.postgres.address;
  wrongDatabase.password = 'not-the-password';
  const database = new pg.Client({ connectionString: wrongDatabase.href });
  await assert.rejects(database.connect(), /password authentication failed for user "kino"/);
  await database.end().catch(() => undefined);
  const storage = createS3Client({
    ...parseConfig(storageConfigShape, services.bootstrap!.environment),
    S3_ENDPOINT: `http://${hosts.s3.address}:${hostPort(services.bootstrap!.environment.S3_ENDPOINT!).port}`,
    S3_SECRET_ACCESS_KEY: 'not-the-secret',
  });
  await assert.rejects(storage.send(new ListBucketsCommand({})), { name: 'SignatureDoesNotMatch' });
  storage.destroy();
  const analytics = new URL(services.bootstrap!.environment.CLICKHOUSE_URL!);
  const wrongAnalytics = await fetch(`http://${hosts.clickhouse.address}:${analytics.port}/?query=SELECT%201`, {
    headers: { Authorization: `Basic ${Buffer.from(`${analytics.username}:not-the-password`).toString('base64')}` },
  });
  assert.notEqual(wrongAnalytics.status, 200, 'ClickHouse refuses a wrong password');

  // docs/production.md step 4: bootstrap, then its output.
  const runBootstrap = async () => {
    const [prefix, ...prefixArgs] = containerRunIn('bootstrap');
    const { stdout, stderr } = await execFileAsync(prefix!, [...prefixArgs, process.execPath, kinoJs, ...services.bootstrap!.command!], {
      env: containerEnv(services.bootstrap!.environment),
    }).catch((error: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(`compose service bootstrap (\`kino ${services.bootstrap!.command!.join(' ')}\`) failed:\n${error.stdout ?? ''}${error.stderr ?? error.message}`);
    });
    return `${stdout}${stderr}`;
  };
  const output = await runBootstrap();
  assert.match(output, /Bucket kino: created; CORS rule for uploads from \* set\./);
  assert.match(output, /PostgreSQL: \d+ migrations applied\./);
  assert.match(output, /ClickHouse: \d+ migrations applied\./);
  const [, orgId, envId] = /Created organization (\S+) \(.*\) with environment (\S+) \(/.exec(output) ?? [];
  const [, apiKey] = /API key \(full, live, \S+\): (\S+)/.exec(output) ?? [];
  const [, operatorToken] = /Operator token \(\S+\): (\S+)/.exec(output) ?? [];
  assert.ok(orgId && envId && apiKey && operatorToken, `bootstrap printed the organization, environment, key and token:\n${output}`);

  // docker compose up: the Kino services, each on its host; a node once the registry listens (compose:
  // depends_on, and the restart policy for a node that started first).
  const start = (name: (typeof kinoServices)[number]) => {
    const service = services[name]!;
    kinoProcesses[name] = startProcess(name, process.execPath, [kinoJs, ...service.command!], {
      env: containerEnv(service.environment),
      runIn: containerRunIn(name),
      logFile: join(workDir, 'logs', `${name}.log`),
    });
  };
  for (const name of kinoServices.filter((name) => name !== 'node')) start(name);
  const running = (name: string) => () => {
    const child = kinoProcesses[name]!.child;
    if (child.exitCode !== null) throw new WaitAbortedError(`${name} exited (${child.exitCode}): ${logOf(name)}`);
  };
  const logOf = (name: string) => {
    try {
      return readFileSync(join(workDir, 'logs', `${name}.log`), 'utf8').slice(-4000);
    } catch {
      return '(no log)';
    }
  };

  // The client's view: the published ports, at the addresses of the hosts that publish them.
  const published = (name: 'api' | 'delivery') => {
    const [hostPortNumber] = services[name]!.ports![0]!.split(':');
    return `http://${hosts[name].address}:${hostPortNumber}`;
  };
  const apiUrl = `${published('api')}/v1/api`;
  await waitFor('the API to report every dependency healthy', async () => {
    running('api')();
    const response = await fetch(`${apiUrl}/health`);
    return response.status === 200 ? true : undefined;
  }, { timeoutMs: 90_000, intervalMs: 250 });
  await waitFor('delivery to answer /health', async () => {
    running('delivery')();
    return (await fetch(`${published('delivery')}/health`)).ok || undefined;
  }, { timeoutMs: 60_000, intervalMs: 250 });
  const registry = hostPort(services.node!.environment.KINO_CONTROL_PLANE!);
  await waitFor('the orchestrator\'s registry to listen', async () => {
    running('orchestrator')();
    return connects(hosts[registry.host as HostName].address, registry.port);
  }, { timeoutMs: 60_000, intervalMs: 250 });
  start('node');
  const client = new Kino({ apiUrl, apiKey: apiKey!, operatorToken: operatorToken! });
  await waitFor('the encode node to register with the orchestrator', async () => {
    running('orchestrator')();
    running('node')();
    const nodes = await client.nodes.list();
    return nodes.some((node) => node.state === 'active') || undefined;
  }, { timeoutMs: 60_000, intervalMs: 250 });

  // docs/production.md step 5: upload to the presigned URL (on the public S3 address), process, wait.
  const clip = await readFile(clipPath);
  const ticket = await client.uploads.createUrl(orgId!, envId!, { filename: 'first.mp4', fileSize: clip.length, contentType: 'video/mp4' });
  assert.ok(ticket.signedURL.startsWith(`${services.api!.environment.S3_PUBLIC_ENDPOINT}/`), `the upload URL is on S3_PUBLIC_ENDPOINT: ${ticket.signedURL}`);
  await client.uploads.putFile(ticket, clip, 'video/mp4');
  const { videoID } = await client.videos.process(orgId!, envId!, {
    storagePath: ticket.bucketPath,
    videoQuality: 'standard',
    compressionRatio: 'ultrafast',
    videoName: 'first.mp4',
    allowPublicAccess: false,
  });
  await waitFor(`video ${videoID} to be ready`, async () => {
    const details = (await client.videos.get(orgId!, videoID)) as Awaited<ReturnType<Kino['videos']['get']>> & { failureReason?: string };
    if (!details.status.transcoding && !details.status.ready) throw new WaitAbortedError(`video ended ${JSON.stringify(details.status)} (${details.failureReason ?? ''})`);
    return details.status.ready || undefined;
  }, { timeoutMs: 180_000, intervalMs: 500 });

  // docs/production.md step 6: a signed playback URL on PUBLIC_DELIVERY_URL; delivery checks it
  // against the API's JWKS (CONTROL_PLANE_URL, the internal address) and serves every file.
  const { signed_url: masterUrl } = await client.playback.signedUrl(orgId!, videoID, { expiration: '1h' });
  assert.ok(masterUrl.startsWith(`${published('delivery')}/`), `the playback URL is on PUBLIC_DELIVERY_URL: ${masterUrl}`);
  const fetchText = async (url: string) => {
    const response = await fetch(url);
    assert.equal(response.status, 200, `GET ${url}`);
    return response.text();
  };
  const uris = (playlist: string) => [
    ...playlist.split('\n').filter((line) => line && !line.startsWith('#')),
    ...[...playlist.matchAll(/#EXT-X-MAP:URI="([^"]+)"/g)].map((match) => match[1]!),
  ];
  const variants = uris(await fetchText(masterUrl)).map((uri) => new URL(uri, masterUrl).href);
  assert.ok(variants.length > 0, 'the master playlist names its variants');
  let segments = 0;
  for (const variant of variants) {
    for (const uri of uris(await fetchText(variant))) {
      const response = await fetch(new URL(uri, variant));
      assert.equal(response.status, 200, `GET ${uri} of ${variant}`);
      assert.ok((await response.arrayBuffer()).byteLength > 0, `${uri} has bytes`);
      segments += 1;
    }
  }
  assert.ok(segments >= variants.length * 2, `every variant has its init segment and media segments (${segments})`);
  assert.equal(await countDecodedFrames(masterUrl), await countFramesInFile(clipPath), 'every frame plays from delivery');

  // Compose runs bootstrap at every `up`: a second run changes nothing and makes no secrets.
  const again = await runBootstrap();
  assert.match(again, /Bucket kino: exists; CORS rule for uploads from \* already set\./);
  assert.match(again, /Organizations exist \(.*\): nothing created, no secrets made\./);
});

test('deploy/kubernetes: every Deployment and the bootstrap Job pass kino config check with the environment their ConfigMap, Secret and env give them', async () => {
  // The manifests' placeholder addresses, replaced by this test's hosts (what an operator changes):
  //   postgres.example.internal                      -> the postgres host
  //   temporal-frontend.temporal.svc.cluster.local   -> the temporal host
  //   s3.storage.svc.cluster.local                   -> the s3 host
  //   clickhouse.analytics.svc.cluster.local         -> the clickhouse host
  //   kino-api.kino.svc.cluster.local (port 80)      -> the api host, port 7080
  //   kino-registry.kino.svc.cluster.local           -> the orchestrator host
  //   s3.kino.example.com, media.kino.example.com    -> the s3 and delivery hosts' published ports
  //   status.podIP (a node's advertised address)     -> the node host
  const placeholders: Array<[string, string]> = [
    ['postgres.example.internal', hosts.postgres.address],
    ['temporal-frontend.temporal.svc.cluster.local', hosts.temporal.address],
    ['s3.storage.svc.cluster.local', hosts.s3.address],
    ['clickhouse.analytics.svc.cluster.local', hosts.clickhouse.address],
    ['kino-api.kino.svc.cluster.local', `${hosts.api.address}:7080`],
    ['kino-registry.kino.svc.cluster.local', hosts.orchestrator.address],
    ['https://s3.kino.example.com', `http://${hosts.s3.address}:8333`],
    ['https://media.kino.example.com', `http://${hosts.delivery.address}:7081`],
  ];
  const files = readdirSync(join(deployDir, 'kubernetes')).filter((name) => name.endsWith('.yaml')).map((name) => join(deployDir, 'kubernetes', name));
  const workloads = kubernetesWorkloads(readKubernetesObjects(files), { 'status.podIP': hosts.node.address, 'metadata.name': 'kino-delivery-7d9f-abcde' });
  assert.deepEqual(workloads.map((workload) => workload.name).sort(), [
    'Deployment/kino-api', 'Deployment/kino-delivery', 'Deployment/kino-node', 'Deployment/kino-orchestrator', 'Job/kino-bootstrap',
  ]);
  for (const { name, args, environment } of workloads) {
    const substituted = Object.fromEntries(
      Object.entries(environment).map(([key, value]) => [key, placeholders.reduce((text, [from, to]) => text.replaceAll(from, to), value)]),
    );
    for (const value of Object.values(substituted)) assert.doesNotMatch(value, /\.svc\.cluster\.local|example\.(internal|com)/, `${name}: every address replaced`);
    const processName = kinoProcessOf(args);
    const problems = await configProblems(processName, substituted);
    assert.equal(problems, undefined, `${name}: \`kino config check ${processName}\` refuses the environment deploy/kubernetes gives it:\n${problems}`);
  }
});
