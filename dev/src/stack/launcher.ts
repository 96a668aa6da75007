// `kino dev`: the whole farm on one machine, on loopback, state under one directory (.kino/). A test
// can give the parts hosts of their own instead (DevStackOptions.hosts: an address and a command
// prefix each, test/farm/hosts.test.ts puts each in a network namespace).
//
// Services first (PostgreSQL, the Temporal dev server, SeaweedFS), then the farm's processes as
// children (`kino api`, `kino orchestrator`, encode nodes, `kino delivery`, and the analytics
// process when it exists), each ready before the next depends on it; then the dev tenancy and
// dev.json. Stopping runs the other way: our processes first, so they finish their work against
// live services, then the services.
//
// Tests and benchmarks start the farm through this launcher too (test/farm/farm.ts,
// test/delivery/harness.ts), in a temp directory on a free port base, with fewer parts and the
// per-part controls they need (kill -9, restart, one more node).
//
// Metadata lives in a local PostgreSQL rather than PGlite: the API, the orchestrator, delivery and
// the admin CLI are separate processes, and PGlite opens its data from one process only.
import { videoTaskQueue } from '@kino/proto/contract';
import { appendFileSync, mkdirSync, openSync, readSync, closeSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { repoRoot } from '@kino/infra';
import {
  findQualityFfmpeg,
  findSpeechEngine,
  MALLOC_TUNABLES,
  startClickHouse,
  startPostgres,
  startProcess,
  seaweedStopGraceMs,
  startSeaweed,
  startTemporal,
  startDevIdentityProvider,
  type DevIdentityProvider,
  startTemporalServer,
  type ManagedProcess,
  type PostgresServer,
  type SeaweedServer,
  type TemporalServer,
} from '../index.ts';
import { tailErrorsToConsole, type ConsoleTail } from './console-tail.ts';
import {
  createDevKey,
  createDevTenancy,
  ensureDevMember,
  keyListsEnvironment,
  tenancyExists,
  type DevTenancy,
} from './dev-tenancy.ts';
import {
  devStackLayout,
  maxNodes,
  portOffsets,
  type DevStackLayout,
  type DevStackOptions,
  type KinoPart,
  type StackHost,
} from './layout.ts';
import { kinoArgs, kinoCommandExists } from './parts.ts';
import { devDashboardClientId, devUser, outsiderUser } from './dev-identity.ts';
import { assertPortsFree, clearLeftovers, DevStackError, recordPids } from './preflight.ts';
import {
  acceptsTcp,
  assertRunning,
  countLiveNodes,
  pollUntil,
  readApiHealth,
  type HealthAnswer,
  StopRequested,
  taskQueueHasPollers,
} from './readiness.ts';
import {
  loadOrCreateSecrets,
  readDevJson,
  writeDevEnv,
  writeDevJson,
  type DevJson,
  type DevSecrets,
} from './state-files.ts';

const bucket = 'kino';

interface Part {
  name: string;
  /** How to start it again (restart); services have none. */
  spec?: KinoPartSpec;
  process: ManagedProcess;
  logFile: string;
  /** Parts stop in ascending phase: 0 = the processes clients talk to, 3 = the services. */
  stopPhase: number;
  graceMs: number;
  tail?: ConsoleTail;
  /** Where this run's lines begin in the (appended) log. */
  logOffset?: number;
  /** A service: how to start it again on the same state and port (stopService, startServiceAgain). */
  startAgain?: () => Promise<StartedService>;
  /** A service's own crash, when SIGKILL of its process is not the whole of it (PostgreSQL's backends). */
  kill9?: () => Promise<void>;
  /** Stopped on purpose (a restart, a test's kill): its exit is no surprise. */
  stoppedOnPurpose?: boolean;
  /** When this process started (Date.now()): a part that ran long enough restarts without backoff. */
  startedAt?: number;
}

/** How `kino dev` starts an exited part again (nextRestartDelay). */
const restartBackoff = { firstMs: 1_000, maxMs: 30_000, resetAfterMs: 60_000 };

interface StartedService {
  process: ManagedProcess;
  kill9?: () => Promise<void>;
}

interface KinoPartSpec {
  kind: KinoPart;
  words: string[];
  env: Record<string, string>;
  args: string[];
  stopPhase: number;
  /** Resolves when the part is ready; throws when it is not. */
  ready(part: Part): Promise<unknown>;
  /** The host it runs on, when not this machine (see DevStackOptions.hosts). */
  runIn?: string[];
}

/** An encode node the launcher started, as it registered. */
export interface StartedNode {
  name: string;
  nodeId: string;
  address: string;
  /** Its Prometheus metrics, `http://HOST:PORT/metrics`. */
  metricsUrl: string;
  process: ManagedProcess;
  /** Its log (JSON lines): tests and benchmarks read the node's own account of its jobs there. */
  logFile: string;
}

export interface DevStackStatus {
  layout: DevStackLayout;
  devJson: DevJson;
  startedInMs: number;
  /** Parts not started because their command does not exist yet, or because what they need is missing. */
  missing: string[];
  /** Parts that started but did not come up, or came up degraded, with the reason. */
  problems: string[];
  env: Record<string, string>;
}

export interface LauncherIo {
  /** Progress lines (stderr). */
  progress(line: string): void;
  /** Error lines of the parts, prefixed with the part's name (stderr). */
  partError(line: string): void;
}

export class DevStackLauncher {
  readonly layout: DevStackLayout;
  private readonly parts: Part[] = [];
  /** Service starts in flight: a stop during startup waits for them so it can stop what they start. */
  private readonly pendingStarts = new Set<Promise<unknown>>();
  private readonly abort = new AbortController();
  private stopped: Promise<number> | undefined;
  private readonly missing: string[] = [];
  private readonly problems: string[] = [];
  private ready = false;
  private env: Record<string, string> = {};
  private nodesStarted = 0;
  private identity: DevIdentityProvider | undefined;
  /** Restarts in a row of each part that exited (the backoff's exponent). */
  private readonly restarts = new Map<string, number>();

  private readonly options: DevStackOptions;
  private readonly io: LauncherIo;
  constructor(options: DevStackOptions, io: LauncherIo) {
    this.options = options;
    this.io = io;
    this.layout = devStackLayout(options);
  }

  /** Where the control plane runs: its services, the API, the orchestrator, analytics. */
  private get controlPlaneHost(): StackHost {
    return this.options.hosts?.controlPlane ?? { address: this.layout.host, runIn: [] };
  }

  private get deliveryHost(): StackHost {
    return this.options.hosts?.delivery ?? this.controlPlaneHost;
  }

  private has(part: 'temporal' | 'orchestrator' | 'delivery' | 'ingest' | 'speech'): boolean {
    return !this.options.without?.includes(part);
  }

  /** The dev OpenID provider the dashboard signs in against (tests revoke a user's grants with it). */
  get identityProvider(): DevIdentityProvider {
    if (!this.identity) throw new DevStackError('the dev identity provider is not running');
    return this.identity;
  }

  get stopping(): boolean {
    return this.abort.signal.aborted;
  }

  async start(): Promise<DevStackStatus> {
    const startedAt = Date.now();
    const { layout, io } = this;
    const { host, ports } = layout;
    const runIn = this.options.hosts?.controlPlane.runIn;
    mkdirSync(layout.logsDir, { recursive: true });
    await clearLeftovers(layout, io.progress);

    const analytics = this.options.analytics ?? 'chdb';
    const hasAnalytics =
      analytics === 'clickhouse-server' || (analytics === 'chdb' && kinoCommandExists(['analytics-store']));
    // Hosts of their own (network namespaces the caller just made) have every port free.
    if (!this.options.hosts) await assertPortsFree(layout, hasAnalytics ? new Set() : new Set(['analytics']));
    const secrets = loadOrCreateSecrets(layout);

    io.progress(
      `starting PostgreSQL (${host}:${ports.postgres}), Temporal (${host}:${ports.temporal}), S3 (${host}:${ports.s3}); state in ${layout.dir}`,
    );
    const postgresStart = this.startService('postgres', () =>
      startPostgres({
        dataDir: layout.postgresDir,
        port: ports.postgres,
        logFile: this.logFile('postgres'),
        durable: this.options.durable ?? true,
        host,
        runIn,
      }),
    );
    const temporalStart = !this.has('temporal')
      ? undefined
      : this.options.temporal === 'postgres'
        ? // The production server keeps its state in the stack's PostgreSQL.
          postgresStart.then((postgres) =>
            this.startService('temporal', () =>
              startTemporalServer({
                dir: layout.temporalServerDir,
                port: ports.temporal,
                postgresUrl: postgres.url,
                logFile: this.logFile('temporal'),
                host,
                runIn,
              }),
            ),
          )
        : this.startService('temporal', () =>
            startTemporal({
              port: ports.temporal,
              dbFile: layout.temporalDb,
              logFile: this.logFile('temporal'),
              host,
              runIn,
            }),
          );
    const [postgres, temporal, seaweed] = await Promise.all([
      postgresStart,
      temporalStart,
      this.startService('s3', () =>
        startSeaweed({
          dataDir: layout.s3Dir,
          s3Port: ports.s3,
          bucket,
          accessKeyId: secrets.s3AccessKeyId,
          secretAccessKey: secrets.s3SecretAccessKey,
          logFile: this.logFile('s3'),
          host,
          runIn,
        }),
      ),
    ]);
    this.checkNotStopping();

    const apiUrl = `http://${host}:${ports.api}/v1/api`;
    const deliveryUrl = `http://${this.deliveryHost.address}:${ports.delivery}`;
    const clickhouseUrl = hasAnalytics ? `http://${host}:${ports.analytics}` : '';
    // On hosts of their own (the multi-host test) the stack has no dashboard: off loopback its sign-in
    // wants https, and its identity provider runs in this process, on none of the hosts' networks.
    const dashboardUrl = this.options.hosts ? '' : `http://${host}:${ports.api}/dashboard`;
    if (dashboardUrl) {
      // The dashboard's identity provider, in this process: the API reads its discovery document on
      // the first sign-in, so it only has to listen before anyone signs in.
      const identityLog = this.markLog('identity');
      this.identity = await startDevIdentityProvider({
        host,
        port: ports.identity,
        users: [devUser, outsiderUser],
        client: {
          clientId: devDashboardClientId,
          clientSecret: secrets.dashboardClientSecret,
          redirectUris: [`${dashboardUrl}/auth/callback`],
          postLogoutRedirectUris: [`${dashboardUrl}/auth/signed-out`],
        },
        log: (line) => appendFileSync(identityLog, `${line}\n`),
      });
    }
    const env = {
      ...this.sharedEnv({ postgres, temporal, seaweed, secrets, apiUrl, deliveryUrl, clickhouseUrl }),
      ...(this.identity
        ? {
            DASHBOARD_URL: dashboardUrl,
            OIDC_ISSUER: this.identity.issuer,
            OIDC_CLIENT_ID: devDashboardClientId,
            OIDC_CLIENT_SECRET: secrets.dashboardClientSecret,
            DASHBOARD_SESSION_SECRET: secrets.dashboardSessionSecret,
            DASHBOARD_OPERATORS: devUser.email,
          }
        : {}),
    };
    this.env = env;
    writeDevEnv(
      layout,
      env,
      "The dev stack's settings: `set -a; . .kino/dev.env; set +a` then run one part alone (README).",
    );

    // Analytics first: the API's health and delivery's segment logs talk to it.
    if (analytics === 'clickhouse-server') {
      await this.startService('analytics', () =>
        startClickHouse({
          dataDir: join(layout.analyticsDir, 'clickhouse-server'),
          httpPort: ports.analytics,
          logFile: this.logFile('analytics'),
        }),
      );
    } else if (hasAnalytics) {
      await this.startPart('analytics', {
        kind: 'analytics',
        words: ['analytics-store'],
        env: {
          ...env,
          ANALYTICS_HOST: host,
          ANALYTICS_PORT: String(ports.analytics),
          ANALYTICS_DATA_DIR: layout.analyticsDir,
        },
        args: [],
        stopPhase: 2,
        ready: (part) =>
          this.waitForPart(part, `analytics on ${clickhouseUrl}`, async () => {
            const response = await fetch(`${clickhouseUrl}/ping`, { signal: AbortSignal.timeout(2000) });
            return response.ok ? true : undefined;
          }),
      });
    } else if (analytics === 'chdb') {
      this.missing.push('analytics (`kino analytics-store` does not exist yet: CLICKHOUSE_URL is left unset)');
    }

    // The API and the orchestrator both migrate the database at start (Kysely serializes them).
    // The encode nodes start beside them, not after: each process spends seconds of CPU loading its
    // modules, which overlaps the others' waits, and a node retries its registration until the
    // orchestrator's registry answers. Delivery waits for the API: its segment shipper checks at
    // start that the API has created the analytics schema.
    const apiStart = this.startApi(env, apiUrl, hasAnalytics);
    const orchestratorStart = this.has('orchestrator') ? this.startOrchestrator(env) : Promise.resolve(false);
    const deliveryStart = this.has('delivery')
      ? apiStart.then(() => this.startDelivery(env, deliveryUrl))
      : Promise.resolve();
    // Ingest reads live streams: after the API, whose start migrates the database.
    const ingestStart = this.has('ingest') ? apiStart.then(() => this.startIngest(env)) : Promise.resolve();
    const wantsNodes = layout.ports.nodeMetrics.length > 0;
    const nodesStart =
      this.has('orchestrator') && wantsNodes
        ? this.startNodes(env, secrets, postgres.url, new Date(startedAt), orchestratorStart)
        : Promise.resolve();
    if (!this.has('orchestrator') && wantsNodes)
      this.missing.push("encode nodes (they register with the orchestrator's registry, which is not running)");
    const [apiUp, orchestratorUp] = await Promise.all([apiStart, orchestratorStart]);
    this.checkNotStopping();

    let tenancy: DevTenancy | undefined;
    if (!apiUp) {
      this.missing.push('dev organization, environment and key (the API is not running)');
    } else {
      tenancy = await this.ensureTenancy(postgres.url, apiUrl);
      if (tenancy) {
        await ensureDevMember(postgres.url, tenancy.orgId, devUser.email).catch((error: unknown) =>
          this.reportFailure('dev dashboard member', error),
        );
      }
    }
    await Promise.all([deliveryStart, ingestStart, nodesStart]);
    this.checkNotStopping();

    const metricsUrl = (port: number) => `http://${host}:${port}/metrics`;
    const devJson: DevJson = {
      apiUrl,
      deliveryUrl,
      orgId: tenancy?.orgId ?? '',
      envId: tenancy?.envId ?? '',
      apiKey: tenancy?.apiKey ?? '',
      databaseUrl: postgres.url,
      operatorToken: secrets.operatorToken,
      metricsUrls: {
        ...(apiUp ? { api: metricsUrl(ports.api) } : {}),
        ...(this.has('delivery') ? { delivery: metricsUrl(ports.delivery) } : {}),
        ...(orchestratorUp ? { orchestrator: metricsUrl(ports.orchestratorMetrics) } : {}),
        ...(analytics === 'chdb' && hasAnalytics ? { analytics: metricsUrl(ports.analytics) } : {}),
        ...(orchestratorUp
          ? Object.fromEntries(ports.nodeMetrics.map((port, i) => [`node-${i + 1}`, metricsUrl(port)]))
          : {}),
      },
      dashboardUrl,
      oidcIssuer: this.identity?.issuer ?? '',
      dashboardUser: { email: devUser.email, password: devUser.password },
      keyEncryptionKey: secrets.keyEncryptionKey,
    };
    if (tenancy) writeDevJson(layout, devJson);
    this.ready = true;
    this.watchForExits();
    return {
      layout,
      devJson,
      startedInMs: Date.now() - startedAt,
      missing: this.missing,
      problems: this.problems,
      env,
    };
  }

  /** Stops everything that runs, in order; resolves with how many parts it stopped. Safe at any time, more than once. */
  stop({ force = false }: { force?: boolean } = {}): Promise<number> {
    if (force) {
      // Stopping: nothing killed here is started again.
      this.abort.abort();
      return Promise.all(this.parts.map((part) => part.process.kill9())).then(() => this.parts.length);
    }
    this.stopped ??= this.stopInOrder();
    return this.stopped;
  }

  private async stopInOrder(): Promise<number> {
    this.abort.abort();
    // Parts still starting are stopped when their start settles (see startService).
    await Promise.allSettled([...this.pendingStarts]);
    const phases = [...new Set(this.parts.map((part) => part.stopPhase))].sort((a, b) => a - b);
    for (const phase of phases) {
      await Promise.all(
        this.parts.filter((part) => part.stopPhase === phase).map((part) => part.process.stop(part.graceMs)),
      );
    }
    await this.identity?.stop();
    return this.parts.length;
  }

  private checkNotStopping(): void {
    if (this.stopping) throw new StopRequested('stopped during startup');
  }

  private logFile(name: string): string {
    return join(this.layout.logsDir, `${name}.log`);
  }

  /** A separator in the (appended) log, so each run's lines are easy to find. */
  private markLog(name: string): string {
    const logFile = this.logFile(name);
    appendFileSync(logFile, `\n----- kino dev: ${name} starting at ${new Date().toISOString()} -----\n`);
    return logFile;
  }

  private addPart(part: Part): void {
    part.startedAt = Date.now();
    this.parts.push(part);
    if (this.ready) this.watchExit(part);
    recordPids(
      this.layout,
      this.parts.map((p) => ({ name: p.name, pid: p.process.child.pid, spawnargs: p.process.child.spawnargs })),
    );
  }

  /** The running (or last) process of a part: 'api', 'orchestrator', 'delivery', 'analytics', 'node-1', ... */
  process(name: string): ManagedProcess {
    const part = this.findPart(name);
    return part.process;
  }

  /** Kills a part with SIGKILL (a crash: no draining, no clean-up). */
  async kill9(name: string): Promise<void> {
    const part = this.findPart(name);
    part.stoppedOnPurpose = true;
    await (part.kill9?.() ?? part.process.kill9());
  }

  /**
   * Takes a dependency of the farm down as an operator's maintenance (or a crash) would: `fast` a
   * clean stop (PostgreSQL's fast shutdown, as `pg_ctl restart -m fast` does), `kill9` a SIGKILL.
   * The farm's processes keep running; startServiceAgain brings it back.
   */
  async stopService(name: 'postgres' | 'temporal' | 's3' | 'analytics', how: 'fast' | 'kill9'): Promise<void> {
    const part = this.findPart(name);
    if (how === 'kill9') await this.kill9(name);
    else {
      part.stoppedOnPurpose = true;
      await part.process.stop(part.graceMs);
    }
  }

  /** Starts a service stopped by stopService again, on the same state and port, and waits until it serves. */
  async startServiceAgain(name: 'postgres' | 'temporal' | 's3' | 'analytics'): Promise<void> {
    const part = this.findPart(name);
    // The analytics store may be one of ours (chDB behind `kino analytics-store`).
    if (part.spec) await this.restart(name);
    else if (part.startAgain) await this.startService(name, part.startAgain);
    else throw new DevStackError(`${name} cannot be started again`);
  }

  /**
   * Starts a farm process again with the same command and environment (after a kill, or stops it
   * first if it still runs), and waits until it is ready. `env` sets more variables for this start
   * only (a later restart goes back to the part's own).
   */
  async restart(name: string, env: Record<string, string> = {}): Promise<ManagedProcess> {
    const previous = this.findPart(name);
    if (!previous.spec) throw new DevStackError(`${name} is a service: it cannot be restarted`);
    previous.stoppedOnPurpose = true;
    await previous.process.stop(previous.graceMs);
    const part = await this.startPart(name, previous.spec, env);
    return part.process;
  }

  /** Starts one more encode node and waits until it has registered (tests start their nodes this way). */
  async startNode({
    name,
    slots = 1,
    threads,
    labels = {},
    qualityFfmpeg = true,
    host = this.controlPlaneHost,
    enroll,
  }: {
    name: string;
    /**
     * Joins a farm with its certificate authority: over TLS, trading `token` (kino admin nodes enroll)
     * for its credential kept in `stateDir` (or with the one already there). Default: the shared token.
     */
    enroll?: { token: string; stateDir: string };
    slots?: number;
    threads?: number;
    labels?: Record<string, string>;
    /** With the quality ffmpeg (NODE_QUALITY_FFMPEG, the default), or without: no AV1, no quality scores. */
    qualityFfmpeg?: boolean;
    /** The host it runs on (default: the control plane's). */
    host?: StackHost;
  }): Promise<StartedNode> {
    if (this.nodesStarted >= maxNodes) throw new DevStackError(`a stack runs at most ${maxNodes} encode nodes`);
    const base = this.layout.ports.api - portOffsets.api;
    const metricsPort = base + portOffsets.firstNodeMetrics + this.nodesStarted;
    this.nodesStarted += 1;
    let registered: { nodeId: string; address: string } | undefined;
    const part = await this.startPart(name, {
      kind: 'node',
      words: ['node', 'start'],
      // Empty is unset (the node's configuration drops empty values).
      env: qualityFfmpeg ? this.env : { ...this.env, NODE_QUALITY_FFMPEG: '' },
      args: this.nodeArgs({
        name,
        host: host.address,
        metricsPort,
        slots,
        threads,
        token: this.env.NODE_TOKEN!,
        labels: { name, ...labels },
        enroll,
      }),
      stopPhase: 0,
      runIn: host.runIn,
      ready: async (started) => {
        registered = await this.waitForPart(started, `encode node ${name} to register`, async () => readyLine(started));
      },
    });
    const metricsUrl = `http://${this.layout.host}:${metricsPort}/metrics`;
    return {
      name,
      nodeId: registered!.nodeId,
      address: registered!.address,
      metricsUrl,
      process: part.process,
      logFile: part.logFile,
    };
  }

  private findPart(name: string): Part {
    const part = this.parts.findLast((p) => p.name === name);
    if (!part)
      throw new DevStackError(
        `no part named ${name} (parts: ${[...new Set(this.parts.map((p) => p.name))].join(', ')})`,
      );
    return part;
  }

  /** Starts a `kino` process and waits until it is ready; a part that does not come up is stopped. */
  private async startPart(name: string, spec: KinoPartSpec, startEnv: Record<string, string> = {}): Promise<Part> {
    const extraEnv = this.options.env?.[spec.kind] ?? {};
    const part = this.startKino(name, spec, { ...spec.env, ...extraEnv, ...startEnv });
    part.spec = spec;
    await spec.ready(part);
    return part;
  }

  private async startService<T extends StartedService>(name: string, start: () => Promise<T>): Promise<T> {
    this.markLog(name);
    // Tracked until the part is registered, so a stop during startup waits and stops it too.
    const tracked = start().then((service) => {
      // SeaweedFS takes its time over a graceful stop and loses nothing when cut short.
      this.addPart({
        name,
        process: service.process,
        logFile: this.logFile(name),
        stopPhase: 3,
        graceMs: name === 's3' ? seaweedStopGraceMs : 15_000,
        tail: tailErrorsToConsole(name, service.process.child, { fromKinoProcess: false, print: this.io.partError }),
        startAgain: start,
        kill9: service.kill9,
      });
      return service;
    });
    this.pendingStarts.add(tracked);
    try {
      return await tracked;
    } catch (error) {
      throw new DevStackError(`${name} did not start: ${(error as Error).message}; see ${this.logFile(name)}`);
    } finally {
      this.pendingStarts.delete(tracked);
    }
  }

  private startKino(
    name: string,
    { words, args, stopPhase, runIn = this.controlPlaneHost.runIn }: KinoPartSpec,
    env: Record<string, string>,
  ): Part {
    const logFile = this.markLog(name);
    const child = startProcess(name, process.execPath, kinoArgs(words, ...args), {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      logFile,
      runIn,
    });
    const part: Part = { name, process: child, logFile, logOffset: statSync(logFile).size, stopPhase, graceMs: 15_000 };
    part.tail = tailErrorsToConsole(name, child.child, { fromKinoProcess: true, print: this.io.partError });
    this.addPart(part);
    return part;
  }

  private waitForPart<T>(
    part: Part,
    what: string,
    check: () => Promise<T | undefined>,
    timeoutMs = 90_000,
  ): Promise<T> {
    return pollUntil(
      what,
      async () => {
        assertRunning(part.process, part.logFile);
        return check();
      },
      { timeoutMs, signal: this.abort.signal },
    );
  }

  /** A part that fails to come up is reported with the end of its log; the rest of the stack still runs. */
  private reportFailure(part: Part | string, error: unknown): void {
    if (error instanceof StopRequested) throw error;
    const name = typeof part === 'string' ? part : part.name;
    const message = `${name}: ${(error as Error).message}`;
    this.problems.push(message);
    this.io.progress(`problem: ${message}`);
    if (typeof part !== 'string') {
      for (const line of part.tail?.recent().slice(-8) ?? []) this.io.partError(`[${name}] ${line}`);
    }
  }

  private sharedEnv({
    postgres,
    temporal,
    seaweed,
    secrets,
    apiUrl,
    deliveryUrl,
    clickhouseUrl,
  }: {
    postgres: PostgresServer;
    temporal: TemporalServer | undefined;
    seaweed: SeaweedServer;
    secrets: DevSecrets;
    apiUrl: string;
    deliveryUrl: string;
    clickhouseUrl: string;
  }): Record<string, string> {
    const { host, ports } = this.layout;
    return {
      DATABASE_URL: postgres.url,
      // Without a Temporal server (tests that start no workflow) the API's client, which connects
      // lazily, points at a port nothing listens on.
      TEMPORAL_ADDRESS: temporal?.address ?? `${host}:1`,
      TEMPORAL_NAMESPACE: 'default',
      ...Object.fromEntries(Object.entries(seaweed.storage).map(([name, value]) => [name, String(value)])),
      // Empty means unset (loadConfig), which overrides a CLICKHOUSE_URL of the developer's shell.
      CLICKHOUSE_URL: clickhouseUrl,
      NODE_TOKEN: secrets.nodeToken,
      // The dev stack's nodes register with the shared token on loopback: it makes no farm CA. A
      // test that enrolls nodes makes one (kino admin bootstrap) and restarts the orchestrator.
      REGISTRY_ACCEPT_NODE_TOKEN: 'true',
      // The nodes' AV1 encoder and quality scorer (the ffmpeg of imageio-ffmpeg, which setup installs).
      NODE_QUALITY_FFMPEG: findQualityFfmpeg(),
      // The nodes' speech engine (captions from speech), when setup installed it and the stack wants it.
      ...(this.has('speech') ? speechEngineEnv() : {}),
      // The API's operators' interface (`kino nodes`); dev.json carries it to the CLI.
      OPERATOR_TOKEN: secrets.operatorToken,
      // Seals the playback signing keys at rest; dev.json carries it to `kino admin playback-keys rotate`.
      KINO_KEY_ENCRYPTION_KEY: secrets.keyEncryptionKey,
      // Webhooks to loopback, and URL ingests from it: the dev stack's receivers and sources (tests, a
      // developer's local endpoint) listen there. Production leaves it off: webhooks and ingests reach
      // public addresses only (docs/security.md).
      WEBHOOK_ALLOW_PRIVATE: '1',
      // What `kino node start` reads when --control-plane is not given: a sourced dev.env runs one more node.
      KINO_CONTROL_PLANE: `${host}:${ports.registry}`,
      CONTROL_PLANE_URL: apiUrl,
      DELIVERY_URL: deliveryUrl,
      // The RTMP server URL the API shows a live stream's publisher: this stack's ingest, when it runs.
      ...(this.has('ingest')
        ? { LIVE_RTMP_URL: `rtmp://${host}:${ports.ingestRtmp}/live`, LIVE_SRT_URL: `srt://${host}:${ports.ingestSrt}` }
        : {}),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      // The AWS SDK's notice on a Node older than 22 (the pinned Node 24 never shows it; a node on
      // PATH still may): the name of the contract and the name this SDK version reads.
      AWS_SDK_JS_SUPPRESS_NODE_VERSION_WARNING: '1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
  }

  private async startApi(env: Record<string, string>, apiUrl: string, hasAnalytics: boolean): Promise<boolean> {
    if (!kinoCommandExists(['api'])) {
      this.missing.push('API (`kino api` does not exist yet)');
      return false;
    }
    const { host, ports } = this.layout;
    // Healthy means 200. A check of a part this stack does not run (no analytics process yet, no
    // Temporal in a test stack) cannot pass, so a 503 that names only those is as healthy as it gets.
    const tolerated = (name: string) =>
      (!hasAnalytics && /analytics|clickhouse/i.test(name)) || (!this.has('temporal') && /temporal/i.test(name));
    let health: HealthAnswer | undefined;
    try {
      await this.startPart('api', {
        kind: 'api',
        words: ['api'],
        env: { ...env, API_HOST: host, API_PORT: String(ports.api) },
        args: [],
        stopPhase: 0,
        ready: async (part) => {
          health = await this.waitForPart(part, `the API at ${apiUrl}/health`, async () => {
            const answer = await readApiHealth(apiUrl);
            if (answer.status === 200) return answer;
            if (answer.status === 503 && answer.failing.length > 0 && answer.failing.every(tolerated)) return answer;
            throw new Error(
              `health answered ${answer.status}${answer.failing.length ? ` (failing: ${answer.failing.join(', ')})` : ''}`,
            );
          });
        },
      });
      if (health && health.status !== 200 && !hasAnalytics && this.options.analytics !== 'none') {
        this.problems.push(`API health is degraded: ${health.failing.join(', ')} (no analytics process yet)`);
      }
      return true;
    } catch (error) {
      this.reportFailure(this.findPart('api'), error);
      return false;
    }
  }

  private async startOrchestrator(env: Record<string, string>): Promise<boolean> {
    if (!kinoCommandExists(['orchestrator'])) {
      this.missing.push('orchestrator (`kino orchestrator` does not exist yet)');
      return false;
    }
    const { host, ports } = this.layout;
    try {
      await this.startPart('orchestrator', {
        kind: 'orchestrator',
        words: ['orchestrator'],
        env: {
          ...env,
          REGISTRY_HOST: host,
          REGISTRY_PORT: String(ports.registry),
          RELAY_PORT: String(ports.relay),
          ORCHESTRATOR_METRICS_PORT: String(ports.orchestratorMetrics),
        },
        args: [],
        stopPhase: 1,
        ready: async (part) => {
          await this.waitForPart(
            part,
            `the node registry on ${host}:${ports.registry}`,
            async () => (await acceptsTcp(host, ports.registry)) || undefined,
          );
          await this.waitForPart(
            part,
            `the orchestrator to poll Temporal task queue ${videoTaskQueue}`,
            async () => (await taskQueueHasPollers(env.TEMPORAL_ADDRESS!, videoTaskQueue)) || undefined,
          );
        },
      });
      return true;
    } catch (error) {
      this.reportFailure(this.findPart('orchestrator'), error);
      return false;
    }
  }

  private async startNodes(
    env: Record<string, string>,
    secrets: DevSecrets,
    databaseUrl: string,
    since: Date,
    orchestratorStart: Promise<boolean>,
  ): Promise<void> {
    if (!kinoCommandExists(['node', 'start'])) {
      this.missing.push('encode nodes (`kino node start` does not exist yet)');
      return;
    }
    const { host, ports, nodeSlots } = this.layout;
    // Every node connects to the one orchestrator: they are all called through its relay.
    const relays = [`${host}:${ports.relay}`];
    this.nodesStarted = ports.nodeMetrics.length;
    // Started together, ready together: the registry sees them all (one query for all of them).
    const nodes = ports.nodeMetrics.map((metricsPort, i) => {
      const name = `node-${i + 1}`;
      const spec: KinoPartSpec = {
        kind: 'node',
        words: ['node', 'start'],
        env,
        args: this.nodeArgs({
          name,
          host,
          metricsPort,
          slots: nodeSlots,
          token: secrets.nodeToken,
        }),
        stopPhase: 0,
        ready: (part) => this.waitForPart(part, `encode node ${name} to register`, async () => readyLine(part)),
      };
      const part = this.startKino(name, spec, { ...spec.env, ...(this.options.env?.node ?? {}) });
      part.spec = spec;
      return part;
    });
    // The registry's table exists once the orchestrator has migrated the database.
    if (!(await orchestratorStart)) {
      this.missing.push("encode nodes (they register with the orchestrator's registry, which is not running)");
      return;
    }
    try {
      await pollUntil(
        `the registry to see ${nodes.length} encode nodes`,
        async () => {
          for (const node of nodes) assertRunning(node.process, node.logFile);
          return (await countLiveNodes(databaseUrl, relays, since)) >= nodes.length || undefined;
        },
        { timeoutMs: 90_000, signal: this.abort.signal },
      );
    } catch (error) {
      const dead = nodes.find((node) => node.process.child.exitCode !== null || node.process.child.signalCode !== null);
      this.reportFailure(dead ?? 'encode nodes', error);
    }
  }

  private nodeArgs({
    name,
    host,
    metricsPort,
    slots,
    token,
    threads,
    labels = {},
    enroll,
  }: {
    name: string;
    /** The interface of its metrics server (a node listens on no other port). */
    host: string;
    metricsPort: number;
    slots: number;
    token: string;
    threads?: number;
    labels?: Record<string, string>;
    enroll?: { token: string; stateDir: string } | undefined;
  }): string[] {
    const { ports } = this.layout;
    const registry = `${this.layout.host}:${ports.registry}`;
    return [
      ...(enroll
        ? ['--registry', `https://${registry}`, '--enroll', enroll.token, '--state-dir', enroll.stateDir]
        : ['--control-plane', registry, '--token', token]),
      '--slots',
      String(slots),
      '--host',
      host,
      '--metrics-port',
      String(metricsPort),
      // One work directory per node, as on separate machines; inside the state dir, not /tmp.
      '--work-dir',
      join(this.layout.dir, 'nodes', name),
      ...(threads === undefined ? [] : ['--threads', String(threads)]),
      ...Object.entries(labels).flatMap(([key, value]) => ['--label', `${key}=${value}`]),
    ];
  }

  private async startDelivery(env: Record<string, string>, deliveryUrl: string): Promise<void> {
    if (!kinoCommandExists(['delivery'])) {
      this.missing.push('delivery (`kino delivery` does not exist yet)');
      return;
    }
    const { ports } = this.layout;
    try {
      await this.startPart('delivery', {
        kind: 'delivery',
        words: ['delivery'],
        runIn: this.deliveryHost.runIn,
        env: {
          ...env,
          DELIVERY_HOST: this.deliveryHost.address,
          DELIVERY_PORT: String(ports.delivery),
          DELIVERY_CACHE_DIR: this.layout.deliveryCacheDir,
          DELIVERY_SPOOL_DIR: this.layout.deliverySpoolDir,
          // Each cache miss allocates a fresh ~2 MB body: keep freed blocks (dev/src/malloc-tunables.ts).
          GLIBC_TUNABLES: MALLOC_TUNABLES,
        },
        args: [],
        stopPhase: 0,
        ready: (part) =>
          this.waitForPart(part, `delivery on ${deliveryUrl}/health`, async () => {
            const response = await fetch(`${deliveryUrl}/health`, { signal: AbortSignal.timeout(2000) });
            return response.ok || undefined;
          }),
      });
    } catch (error) {
      this.reportFailure(this.findPart('delivery'), error);
    }
  }

  private async startIngest(env: Record<string, string>): Promise<void> {
    if (!kinoCommandExists(['ingest'])) {
      this.missing.push('ingest (`kino ingest` does not exist yet)');
      return;
    }
    const { host, ports } = this.layout;
    try {
      await this.startPart('ingest', {
        kind: 'ingest',
        words: ['ingest'],
        env: {
          ...env,
          INGEST_HOST: host,
          INGEST_RTMP_PORT: String(ports.ingestRtmp),
          INGEST_SRT_PORT: String(ports.ingestSrt),
          INGEST_STATE_DIR: this.layout.ingestDir,
        },
        args: [],
        stopPhase: 0,
        ready: (part) =>
          this.waitForPart(part, `ingest on rtmp://${host}:${ports.ingestRtmp}`, () =>
            acceptsConnections(host, ports.ingestRtmp),
          ),
      });
    } catch (error) {
      this.reportFailure(this.findPart('ingest'), error);
    }
  }

  /** Re-uses the previous run's organization, environment and key; makes what is missing. */
  private async ensureTenancy(databaseUrl: string, apiUrl: string): Promise<DevTenancy | undefined> {
    try {
      const previous = readDevJson(this.layout);
      let tenancy: DevTenancy;
      if (previous && (await tenancyExists(databaseUrl, previous.orgId, previous.envId))) {
        tenancy = { orgId: previous.orgId, envId: previous.envId, apiKey: previous.apiKey };
        if (!(await keyListsEnvironment(apiUrl, tenancy))) {
          this.io.progress('the dev API key of dev.json no longer works: making a new one');
          tenancy.apiKey = await createDevKey(databaseUrl, tenancy.orgId);
        }
      } else {
        this.io.progress('creating the dev organization, environment and API key');
        tenancy = await createDevTenancy(databaseUrl);
      }
      if (!(await keyListsEnvironment(apiUrl, tenancy))) {
        throw new DevStackError(`the dev API key does not list environment ${tenancy.envId} through ${apiUrl}`);
      }
      return tenancy;
    } catch (error) {
      this.reportFailure('dev tenancy', error);
      return undefined;
    }
  }

  /**
   * After "ready", a part that exits without being asked to is announced with the end of its log;
   * under `kino dev` (restartExited) it is started again after a backoff, as a process supervisor
   * would in production (docs/production.md#restart-policy). Parts started later are watched too.
   */
  private watchForExits(): void {
    for (const part of this.parts) this.watchExit(part);
  }

  private watchExit(part: Part): void {
    void part.process.exited.then((code) => {
      if (!this.ready || this.stopping || part.stoppedOnPurpose) return;
      const restartable =
        this.options.restartExited === true && (part.spec !== undefined || part.startAgain !== undefined);
      const delayMs = restartable ? this.nextRestartDelay(part) : 0;
      const then = restartable ? `starting it again in ${delayMs / 1000} s` : 'the rest of the stack keeps running';
      this.io.partError(`[${part.name}] exited (${code}); ${then}. Last lines of ${part.logFile}:`);
      for (const line of part.tail?.recent().slice(-10) ?? []) this.io.partError(`[${part.name}]   ${line}`);
      if (restartable) void this.startAgainAfter(part, delayMs);
    });
  }

  /**
   * The backoff of a part that keeps exiting: 1 s, 2 s, 4 s ... up to 30 s, back to 1 s once a run
   * lasted a minute (a crash now and then restarts at once; a crash loop does not spin).
   */
  private nextRestartDelay(part: Part): number {
    const ranMs = Date.now() - (part.startedAt ?? 0);
    const previous = ranMs >= restartBackoff.resetAfterMs ? 0 : (this.restarts.get(part.name) ?? 0);
    this.restarts.set(part.name, previous + 1);
    return Math.min(restartBackoff.firstMs * 2 ** previous, restartBackoff.maxMs);
  }

  private async startAgainAfter(exited: Part, delayMs: number): Promise<void> {
    try {
      await sleep(delayMs, undefined, { signal: this.abort.signal });
    } catch {
      return; // the stack is stopping
    }
    try {
      if (exited.spec) await this.restart(exited.name);
      else await this.startService(exited.name, exited.startAgain!);
      const pid = this.findPart(exited.name).process.child.pid;
      this.io.partError(`[${exited.name}] running again (pid ${pid})`);
    } catch (error) {
      if (this.stopping) return;
      this.io.partError(`[${exited.name}] did not come back: ${(error as Error).message}`);
      // A process that started and exited again is watched, and retried from there; a service that
      // could not even start is retried from here.
      const latest = this.findPart(exited.name);
      if (latest === exited) void this.startAgainAfter(exited, this.nextRestartDelay(exited));
    }
  }
}

/** The line `kino node start` prints on stdout once registered: `{"nodeId", "address"}` (this run's). */
function readyLine(part: Part): { nodeId: string; address: string } | undefined {
  const fd = openSync(part.logFile, 'r');
  try {
    const size = statSync(part.logFile).size - (part.logOffset ?? 0);
    const buffer = Buffer.alloc(Math.max(0, size));
    readSync(fd, buffer, 0, buffer.length, part.logOffset ?? 0);
    const line = buffer
      .toString('utf8')
      .split('\n')
      .find((l) => l.startsWith('{"nodeId"'));
    return line ? (JSON.parse(line) as { nodeId: string; address: string }) : undefined;
  } finally {
    closeSync(fd);
  }
}

/** Whether something listens on host:port (RTMP has no health URL): true, or undefined to wait on. */
function acceptsConnections(host: string, port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(undefined));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(undefined);
    });
  });
}

/** NODE_TRANSCRIBE_MODEL and NODE_TRANSCRIBE_PYTHON of the dev stack's nodes, when a speech engine is installed. */
function speechEngineEnv(): Record<string, string> {
  const engine = findSpeechEngine();
  return engine ? { NODE_TRANSCRIBE_MODEL: engine.model, NODE_TRANSCRIBE_PYTHON: engine.python } : {};
}
