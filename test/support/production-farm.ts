// What test/deploy/production-path.test.ts does for each deployment file it runs (deploy/compose.yaml,
// deploy/kubernetes/), every part on a host of its own (test/support/network-hosts.ts):
//   - the image: deploy/Dockerfile's two stages (`npm run build`, deploy/assemble-runtime.mjs) into a
//     directory, and the settings of its final stage (ENV, USER, WORKDIR);
//   - containers: a Kino command (`node kino.js <args>`, the image's ENTRYPOINT) with exactly the
//     environment the file gives it plus the image's ENV, PATH and HOME, on its host, in a mount
//     namespace of its own where the image's WORKDIR (/var/lib/kino: the container's writable layer)
//     and each volume the file mounts are directories of the test bind-mounted there;
//   - the backing services (PostgreSQL, Temporal's dev server, SeaweedFS, ClickHouse) with the
//     credentials the file names, each checking them;
//   - bootstrap's output, and the client's walk from an upload to a played video.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ListBucketsCommand } from '@aws-sdk/client-s3';
import pg from 'pg';
import type { Kino } from '@kino/sdk';
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
import { countDecodedFrames, countFramesInFile } from '@kino/test/support/media';
import type { NetworkHost } from '@kino/test/support/network-hosts';
import { deployDir, imageSettings, type ImageSettings } from '@kino/test/support/deployment-files';

const execFileAsync = promisify(execFile);

export interface KinoImage {
  /** The image's ENTRYPOINT runs `node <kinoJs> <command>`. */
  kinoJs: string;
  /**
   * The image's own node (it has /usr/local/bin/node): a link to the Node running the tests, kept
   * outside every path a container mounts a volume on (an encode node's /work hides the checkout).
   */
  node: string;
  settings: ImageSettings;
}

/** deploy/Dockerfile's two stages into `dir`: `npm run build`, then deploy/assemble-runtime.mjs. */
export async function buildImage(dir: string): Promise<KinoImage> {
  const runtimeDir = join(dir, 'opt-kino');
  await execFileAsync('npm', ['run', 'build'], { cwd: repoRoot, maxBuffer: 64 << 20 });
  await execFileAsync(process.execPath, [join(deployDir, 'assemble-runtime.mjs'), runtimeDir], {
    cwd: repoRoot,
    maxBuffer: 64 << 20,
  });
  const node = join(dir, 'bin', 'node');
  mkdirSync(dirname(node), { recursive: true });
  try {
    linkSync(realpathSync(process.execPath), node);
  } catch {
    copyFileSync(process.execPath, node); // another filesystem
    chmodSync(node, 0o755);
  }
  return { kinoJs: join(runtimeDir, 'cli', 'bin', 'kino.js'), node, settings: imageSettings() };
}

export interface Container {
  /** The service's or workload's name: its log file and state directories are named by it. */
  name: string;
  host: NetworkHost;
  /** The arguments kino.js gets (the file's `command` or `args`). */
  args: readonly string[];
  /** Exactly what the file gives the container. */
  environment: Readonly<Record<string, string>>;
  /** Where the file mounts a volume (an emptyDir, a fresh directory each). */
  mountPaths?: readonly string[];
  /** Directories of the machine the file bind-mounts (Compose's `./certs:/etc/kino/certs`): source, then path. */
  binds?: ReadonlyArray<{ source: string; path: string }>;
}

// In the container's mount namespace: each source directory bind-mounted on its path, then the
// command in the image's WORKDIR. Arguments: WORKDIR, then source/path pairs, `--`, the command.
const mountAndExec = [
  'set -e',
  'workdir=$1; shift',
  'while [ "$1" != -- ]; do mkdir -p "$2"; mount --bind "$1" "$2"; shift 2; done',
  'shift',
  'cd "$workdir"',
  'exec "$@"',
].join('\n');

/** Kino containers on the hosts of one deployment file's run: started, run to completion, logged, stopped. */
export class ContainerRuntime {
  private readonly processes = new Map<string, ManagedProcess>();
  /** Mount points this runtime made on the machine (/var/lib/kino when it was missing), removed again if empty. */
  private readonly madeMountPoints: string[] = [];

  private readonly image: KinoImage;
  private readonly workDir: string;
  constructor(image: KinoImage, workDir: string) {
    this.image = image;
    this.workDir = workDir;
  }

  /** What a Kino container's process gets: the image's ENV, the file's environment, PATH and HOME. */
  env(environment: Readonly<Record<string, string>>): Record<string, string> {
    return { ...this.image.settings.env, ...environment, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/' };
  }

  /** `kino config check <process>` from the image: the output when it refuses `environment`, else undefined. */
  configProblems(processName: string, environment: Readonly<Record<string, string>>): Promise<string | undefined> {
    return execFileAsync(this.image.node, [this.image.kinoJs, 'config', 'check', processName], {
      env: this.env(environment),
    }).then(
      () => undefined,
      (error: Error & { stdout?: string; stderr?: string }) =>
        `${error.stdout ?? ''}${error.stderr ?? ''}`.trim() || error.message,
    );
  }

  /** The command prefix that puts a process in the container's host and mount namespace. */
  private prefix(container: Container): string[] {
    const fresh = [this.image.settings.workdir, ...(container.mountPaths ?? [])].map((path, index) => ({
      source: join(this.workDir, 'containers', container.name, String(index)),
      path,
    }));
    const mounts = [...fresh, ...(container.binds ?? [])].sort((a, b) => a.path.length - b.path.length);
    const mountPaths = mounts.map((mount) => mount.path);
    const pairs: string[] = [];
    for (const { source, path: mountPath } of mounts) {
      mkdirSync(source, { recursive: true });
      // A mount point outside every other mount of this container is on the machine itself.
      const nested = mountPaths.some((other) => other !== mountPath && mountPath.startsWith(`${other}/`));
      if (!nested && !existsSync(mountPath)) {
        mkdirSync(mountPath, { recursive: true });
        this.madeMountPoints.push(mountPath);
      }
      pairs.push(source, mountPath);
    }
    return [
      ...container.host.runIn,
      'unshare',
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      mountAndExec,
      'container',
      this.image.settings.workdir,
      ...pairs,
      '--',
    ];
  }

  /** Runs the container to completion (a one-shot service, a Job): its output, or an error with it. */
  async run(container: Container): Promise<string> {
    const [command, ...args] = this.prefix(container);
    const { stdout, stderr } = await execFileAsync(
      command!,
      [...args, this.image.node, this.image.kinoJs, ...container.args],
      {
        env: this.env(container.environment),
      },
    ).catch((error: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(
        `${container.name} (\`kino ${container.args.join(' ')}\`) failed:\n${error.stdout ?? ''}${error.stderr ?? error.message}`,
      );
    });
    return `${stdout}${stderr}`;
  }

  start(container: Container): ManagedProcess {
    const child = startProcess(container.name, this.image.node, [this.image.kinoJs, ...container.args], {
      env: this.env(container.environment),
      runIn: this.prefix(container),
      logFile: this.logFile(container.name),
    });
    this.processes.set(container.name, child);
    return child;
  }

  /** A check for waits: throws (ending the wait) once the container's process has exited, with its log. */
  assertRunning(name: string): void {
    const child = this.processes.get(name)?.child;
    if (!child) throw new WaitAbortedError(`${name} was never started`);
    if (child.exitCode !== null) throw new WaitAbortedError(`${name} exited (${child.exitCode}): ${this.logOf(name)}`);
  }

  /** The exit code of the container's process, null while it runs. */
  exitCodeOf(name: string): number | null {
    const child = this.processes.get(name)?.child;
    if (!child) throw new Error(`${name} was never started`);
    return child.exitCode;
  }

  logOf(name: string): string {
    try {
      return readFileSync(this.logFile(name), 'utf8').slice(-4000);
    } catch {
      return '(no log)';
    }
  }

  private logFile(name: string): string {
    return join(this.workDir, 'logs', `${name}.log`);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.processes.values()].map((child) => child.stop()));
    this.processes.clear();
    for (const mountPoint of this.madeMountPoints.splice(0)) {
      if (existsSync(mountPoint) && readdirSync(mountPoint).length === 0) rmdirSync(mountPoint);
    }
  }
}

/** The backing services as the deployment file has them: where each listens, with which credentials. */
export interface BackingServiceSettings {
  postgres: { host: NetworkHost; port: number; database: string; user: string; password: string };
  temporal: { host: NetworkHost; port: number };
  s3: { host: NetworkHost; port: number; accessKeyId: string; secretAccessKey: string };
  clickhouse: { host: NetworkHost; port: number; user: string; password: string };
}

/** Starts them (each on its host, SeaweedFS's identity from its environment as compose gives it); resolves with their stop. */
export async function startBackingServices(
  settings: BackingServiceSettings,
  dataDir: string,
): Promise<() => Promise<void>> {
  const { postgres, temporal, s3, clickhouse } = settings;
  const log = (name: string) => join(dataDir, 'logs', `${name}.log`);
  const started = await Promise.allSettled([
    startPostgres({
      dataDir: join(dataDir, 'postgres'),
      port: postgres.port,
      host: postgres.host.address,
      runIn: postgres.host.runIn,
      database: postgres.database,
      login: { user: postgres.user, password: postgres.password },
      durable: false,
      logFile: log('postgres'),
    }),
    startTemporal({
      port: temporal.port,
      host: temporal.host.address,
      runIn: temporal.host.runIn,
      logFile: log('temporal'),
    }),
    startSeaweed({
      dataDir: join(dataDir, 's3'),
      s3Port: s3.port,
      host: s3.host.address,
      runIn: s3.host.runIn,
      bucket: null,
      credentialsFrom: 'environment',
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      logFile: log('s3'),
    }),
    startClickHouse({
      dataDir: join(dataDir, 'clickhouse'),
      httpPort: clickhouse.port,
      host: clickhouse.host.address,
      runIn: clickhouse.host.runIn,
      login: { user: clickhouse.user, password: clickhouse.password },
      logFile: log('clickhouse'),
    }),
  ]);
  const stop = () =>
    Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value.stop() : undefined))).then(
      () => undefined,
    );
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return stop;
}

/** Each backing service checks the credentials Kino's environment (`kinoEnv`, the bootstrap's) carries: wrong ones are refused. */
export async function assertCredentialsChecked(
  settings: BackingServiceSettings,
  kinoEnv: Readonly<Record<string, string>>,
): Promise<void> {
  const { postgres, s3, clickhouse } = settings;
  const database = new pg.Client({
    connectionString: `postgres://${postgres.user}:not-the-password@${postgres.host.address}:${postgres.port}/${postgres.database}`,
  });
  await assert.rejects(database.connect(), new RegExp(`password authentication failed for user "${postgres.user}"`));
  await database.end().catch(() => undefined);
  const storage = createS3Client({
    ...parseConfig(storageConfigShape, kinoEnv),
    S3_ENDPOINT: `http://${s3.host.address}:${s3.port}`,
    S3_SECRET_ACCESS_KEY: 'not-the-secret',
  });
  await assert.rejects(storage.send(new ListBucketsCommand({})), { name: 'SignatureDoesNotMatch' });
  storage.destroy();
  const analytics = await fetch(`http://${clickhouse.host.address}:${clickhouse.port}/?query=SELECT%201`, {
    headers: { Authorization: `Basic ${Buffer.from(`${clickhouse.user}:not-the-password`).toString('base64')}` },
  });
  assert.notEqual(analytics.status, 200, 'ClickHouse refuses a wrong password');
}

/** A URL's or `host:port`'s host and port. */
export function hostPort(address: string): { host: string; port: number } {
  const url = new URL(address.includes('://') ? address : `tcp://${address}`);
  return { host: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
}

/** Whether a TCP connection to host:port is accepted. */
export function connects(host: string, port: number): Promise<boolean> {
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

export interface FirstInstallation {
  orgId: string;
  envId: string;
  apiKey: string;
  operatorToken: string;
}

/**
 * What the deployment file's bootstrap (`kino admin bootstrap --prepare-only`) printed on its first
 * run: the bucket made, the migrations applied, no organization and no secret (its log is kept).
 */
export function assertPreparedOnly(output: string): void {
  assert.match(output, /Bucket kino: created; CORS rule for uploads from \* set\./);
  assert.match(output, /PostgreSQL: \d+ migrations applied\./);
  assert.match(output, /ClickHouse: \d+ migrations applied\./);
  assert.match(output, /No organization yet: run `kino admin bootstrap` where its output is not kept/);
  assert.doesNotMatch(output, /svc_live_|svc_test_|kino_op_/, 'no secret in the kept log');
}

/** What `kino admin bootstrap`, run by the operator on a prepared installation, printed (docs/production.md step 4). */
export function readBootstrapOutput(output: string): FirstInstallation {
  assert.match(output, /PostgreSQL: schema current\./);
  const [, orgId, envId] = /Created organization (\S+) \(.*\) with environment (\S+) \(/.exec(output) ?? [];
  const [, apiKey] = /API key \(full, live, \S+\): (\S+)/.exec(output) ?? [];
  const [, operatorToken] = /Operator token \(\S+\): (\S+)/.exec(output) ?? [];
  assert.ok(
    orgId && envId && apiKey && operatorToken,
    `bootstrap printed the organization, environment, key and token:\n${output}`,
  );
  return { orgId, envId, apiKey, operatorToken };
}

/** Waits until an encode node is active in the API's view; `assertRunning` ends the wait when a process it needs has exited. */
export async function waitForActiveNode(client: Kino, assertRunning: () => void): Promise<void> {
  await waitFor(
    'the encode node to register with the orchestrator',
    async () => {
      assertRunning();
      const nodes = await client.nodes.list();
      return nodes.some((node) => node.state === 'active') || undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}

/**
 * docs/production.md steps 5 and 6, as a client outside every host: uploads the clip to the presigned
 * URL the API hands out (on `uploadEndpoint`; with `multipartPartSize`, as a multipart upload in parts
 * that size), processes it, waits for `ready`, and plays it from delivery with a signed URL (on
 * `deliveryUrl`): master playlist, every variant and segment, every frame (decoded by `decode`,
 * default ffmpeg on this machine). The video is named by the clip's file name.
 */
export async function uploadProcessAndPlay({
  client,
  installation: { orgId, envId },
  clipPath,
  uploadEndpoint,
  deliveryUrl,
  multipartPartSize,
  decode = (masterUrl) => countDecodedFrames(masterUrl),
}: {
  client: Kino;
  installation: FirstInstallation;
  clipPath: string;
  uploadEndpoint: string;
  deliveryUrl: string;
  multipartPartSize?: number;
  decode?: (masterUrl: string) => Promise<number>;
}): Promise<void> {
  const videoName = basename(clipPath);
  let bucketPath: string;
  if (multipartPartSize) {
    const first = await client.uploads.createMultipart(orgId, envId, {
      filename: videoName,
      fileSize: statSync(clipPath).size,
      partSize: multipartPartSize,
    });
    const [partUrl] = (await client.uploads.partUrls(orgId, envId, first.uploadId, [1])).parts;
    assert.ok(
      partUrl?.signedURL.startsWith(`${uploadEndpoint}/`),
      `the part URLs are on ${uploadEndpoint}: ${partUrl?.signedURL}`,
    );
    await client.uploads.abortMultipart(orgId, envId, first.uploadId);
    const uploaded = await client.uploads.upload(orgId, envId, clipPath, {
      multipartThreshold: multipartPartSize,
      partSize: multipartPartSize,
      partsInFlight: 1,
    });
    assert.ok(
      uploaded.partCount >= 2,
      `a multipart upload in parts of ${multipartPartSize} bytes (${uploaded.partCount})`,
    );
    bucketPath = uploaded.bucketPath;
  } else {
    const clip = await readFile(clipPath);
    const ticket = await client.uploads.createUrl(orgId, envId, {
      filename: videoName,
      fileSize: clip.length,
      contentType: 'video/mp4',
    });
    assert.ok(
      ticket.signedURL.startsWith(`${uploadEndpoint}/`),
      `the upload URL is on ${uploadEndpoint}: ${ticket.signedURL}`,
    );
    await client.uploads.putFile(ticket, clip, 'video/mp4');
    bucketPath = ticket.bucketPath;
  }
  const { videoID } = await client.videos.process(orgId, envId, {
    storagePath: bucketPath,
    videoQuality: 'standard',
    compressionRatio: 'ultrafast',
    videoName,
    allowPublicAccess: false,
  });
  await waitFor(
    `video ${videoID} to be ready`,
    async () => {
      const details = (await client.videos.get(orgId, videoID)) as Awaited<ReturnType<Kino['videos']['get']>> & {
        failureReason?: string;
      };
      if (!details.status.transcoding && !details.status.ready)
        throw new WaitAbortedError(`video ended ${JSON.stringify(details.status)} (${details.failureReason ?? ''})`);
      return details.status.ready || undefined;
    },
    { timeoutMs: 180_000, intervalMs: 500 },
  );

  // A signed playback URL on the delivery address the API was given; delivery checks it against
  // the API's JWKS (CONTROL_PLANE_URL, the internal address) and serves every file.
  const { signed_url: masterUrl } = await client.playback.signedUrl(orgId, videoID, { expiration: '1h' });
  assert.ok(masterUrl.startsWith(`${deliveryUrl}/`), `the playback URL is on ${deliveryUrl}: ${masterUrl}`);
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
  assert.equal(await decode(masterUrl), await countFramesInFile(clipPath), 'every frame plays from delivery');
}

/** A CA of the test's own and a certificate it signed for `serverName`, in PEM (openssl). */
export interface TestCa {
  caCert: string;
  key: string;
  cert: string;
}

export function makeTestCa(dir: string, serverName: string): TestCa {
  mkdirSync(dir, { recursive: true });
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Kino test CA',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${serverName}`,
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  );
  writeFileSync(join(dir, 'server.ext'), `subjectAltName=DNS:${serverName}\n`);
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'server.ext',
    '-out',
    'server.pem',
  );
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  return { caCert: read('ca.pem'), key: read('server.key'), cert: read('server.pem') };
}
