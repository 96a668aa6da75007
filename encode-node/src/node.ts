// An encode node: the EncodeService gRPC server, run inside the node's own connection to the control
// plane's registry (its Connect stream): it listens on no network port, so it joins from behind NAT
// or a firewall that lets nothing in. It holds no storage credentials: every job brings presigned
// URLs for its input and outputs.
import { readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import {
  createRegistryClient,
  encodeServiceDefinition,
  grpc,
  nodeChannelCredentials,
  type NodeCredential,
} from '@kino/proto';
import { createMetricsRegistry, startMetricsServer, type MetricsServer } from '@kino/infra';
import { createEncodeServiceHandlers } from './encode-service.ts';
import { NodeJobs } from './node-jobs.ts';
import { createNodeMetrics } from './metrics.ts';
import { Registration } from './registration.ts';
import { detectCapabilities, detectSpeechEngine } from './capabilities.ts';
import { processWorkDir, removeLeftoverJobDirs } from './job-dir.ts';
import { loadOrEnrollCredential } from './credential.ts';
import { CertificateRenewal } from './certificate-renewal.ts';

export interface EncodeNodeOptions {
  /** HOST:PORT of the NodeRegistry (the orchestrator process). */
  controlPlane: string;
  /**
   * The node's own credential over TLS (a farm with its CA): kept in `stateDir`, traded for
   * `enrollToken` at the first start. The registry knows the node by it; calls reach the node only
   * inside its TLS connection to the registry, whose certificate it checked against the farm CA.
   */
  credential?: { stateDir: string; enrollToken?: string | undefined };
  /** Without a credential, on plaintext: the shared farm token, presented to the registry and checked on every call to this node. */
  token?: string | undefined;
  /** Encodes run at once; one more is refused with RESOURCE_EXHAUSTED. */
  slots: number;
  /** Interface of the metrics server (default 127.0.0.1): the node's only listening port, when it has one. */
  host?: string;
  labels?: Record<string, string>;
  /** Where job directories go (default: the OS temp dir). */
  workDir?: string;
  /** ffmpeg encoder threads per encode; 0 (default): automatic. */
  threads?: number;
  /**
   * An ffmpeg with libvmaf and SVT-AV1 2 or later (the static build of PyPI's imageio-ffmpeg is
   * one): AV1 renditions and quality scores need it. Without it the node refuses AV1 and scores
   * nothing.
   */
  qualityFfmpeg?: string;
  /**
   * The speech engine (captions from speech): a Python with faster-whisper and a CTranslate2 Whisper
   * model directory. Without it the node transcribes nothing.
   */
  speech?: { python: string; model: string };
  logger?: Logger;
  /** The metrics server (`GET /metrics` on host): its port (0: any free one); none when unset. */
  metricsPort?: number;
  /** Required as `Authorization: Bearer` on /metrics when set (METRICS_TOKEN). */
  metricsToken?: string;
}

export interface EncodeNodeHandle {
  /** HOST:PORT of the relay the orchestrators call this node through (the one holding its connection now). */
  readonly address: string;
  /** HOST:PORT of the metrics server, when it runs one. */
  readonly metricsAddress: string | undefined;
  readonly nodeId: string;
  /** Stops taking jobs, lets running ones finish, deregisters and closes the server. */
  drain(): Promise<void>;
  /** Settles when the registry says this node's credential was revoked: it abandoned its jobs and stopped heartbeating. */
  readonly revoked: Promise<Error>;
}

export const nodeVersion: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Logs of a node go to stderr: its stdout carries the one "ready" line the CLI prints. */
export function createNodeLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { service: 'encode-node' } }, pino.destination(2));
}

function logCapabilities(
  logger: Logger,
  capabilities: Awaited<ReturnType<typeof detectCapabilities>>,
  qualityFfmpeg: string | undefined,
): void {
  if (qualityFfmpeg && !capabilities.qualityFfmpeg)
    logger.warn(
      { qualityFfmpeg },
      'the quality ffmpeg does not work (no libvmaf, or SVT-AV1 fails a test encode): this node takes no AV1 or scored work',
    );
  logger.info(capabilities, 'capabilities detected');
}

/** This process's work directory under `sharedWorkDir`, after removing those of node processes that are gone. */
async function prepareWorkDir(sharedWorkDir: string, logger: Logger): Promise<string> {
  const leftovers = await removeLeftoverJobDirs(sharedWorkDir);
  if (leftovers.length > 0)
    logger.info({ removed: leftovers }, 'removed the job directories of node processes that are gone');
  const workDir = processWorkDir(sharedWorkDir);
  await mkdir(workDir, { recursive: true });
  return workDir;
}

function checkOptions(options: EncodeNodeOptions): void {
  if (!options.credential && !options.token)
    throw new Error('a credential (https registry) or the farm token is required');
  if (!(options.slots >= 1)) throw new Error(`slots must be 1 or more (got ${options.slots})`);
}

/** Renewed certificates serve the calls that follow; the open connection and the work in it go on. */
function keepCertificateRenewed(
  registration: Registration,
  credential: NodeCredential,
  options: EncodeNodeOptions,
  logger: Logger,
): CertificateRenewal {
  const renewal = new CertificateRenewal({
    stateDir: options.credential!.stateDir,
    credential,
    registry: () => registration.registry,
    renewed: (renewed) =>
      registration.useRegistry(createRegistryClient(options.controlPlane, nodeChannelCredentials(renewed))),
    logger,
  });
  renewal.start();
  void registration.revoked.then(() => renewal.stop());
  return renewal;
}

export async function startEncodeNode(options: EncodeNodeOptions): Promise<EncodeNodeHandle> {
  checkOptions(options);
  const logger = options.logger ?? createNodeLogger();
  const host = options.host ?? '127.0.0.1';
  const workDir = await prepareWorkDir(options.workDir ?? join(tmpdir(), 'kino-node'), logger);

  // First: an enrollment the registry refuses stops the node at once, before a second of encoder tests.
  const credential =
    options.credential &&
    (await loadOrEnrollCredential({ registry: options.controlPlane, ...options.credential, logger }));
  // About a second of one-frame encodes, before the node serves: its jobs use the hardware found.
  const detected = [detectCapabilities(options.qualityFfmpeg), detectSpeechEngine(options.speech, logger)] as const;
  const [capabilities, speechEngine] = await Promise.all(detected);
  const jobs = new NodeJobs(options.slots);
  const metricsRegistry = options.metricsPort === undefined ? undefined : createMetricsRegistry();
  const metrics = metricsRegistry && createNodeMetrics(metricsRegistry, jobs);
  const registry = createRegistryClient(
    options.controlPlane,
    credential ? nodeChannelCredentials(credential) : options.token!,
  );
  // The registry assigns the node's id when it connects; log lines read it from here.
  const identity = { nodeId: '' };
  // Bound to no port: each connection to the registry is injected into it (its tunnel).
  const server = new grpc.Server();
  server.addService(
    encodeServiceDefinition,
    createEncodeServiceHandlers({
      ...(credential ? {} : { token: options.token! }),
      jobs,
      workDir,
      threads: options.threads ?? 0,
      ...(options.qualityFfmpeg ? { qualityFfmpeg: options.qualityFfmpeg } : {}),
      encoders: capabilities.encoders,
      ...(speechEngine ? { speechEngine } : {}),
      logger,
      nodeId: () => identity.nodeId,
      countJob: metrics && ((kind, result) => metrics.jobs.inc({ kind, result })),
    }),
  );
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());

  logCapabilities(logger, capabilities, options.qualityFfmpeg);
  const registration = new Registration({
    registry,
    serve: (tunnel) => injector.injectConnection(tunnel),
    slots: options.slots,
    version: nodeVersion,
    labels: options.labels ?? {},
    ...capabilities,
    transcribeLanguages: [...(speechEngine?.languages ?? [])],
    jobs,
    logger,
    metrics,
  });
  let metricsServer: MetricsServer | undefined;
  try {
    if (metricsRegistry) {
      metricsServer = await startMetricsServer({
        registry: metricsRegistry,
        host,
        port: options.metricsPort!,
        token: options.metricsToken,
      });
    }
    await registration.registerUntilDone();
  } catch (error) {
    injector.destroy();
    server.forceShutdown();
    await metricsServer?.stop();
    registry.close();
    throw error;
  }
  registration.start();
  const active = registration;
  const renewal = credential && keepCertificateRenewed(active, credential, options, logger);
  identity.nodeId = active.nodeId;
  logger.info(
    {
      nodeId: active.nodeId,
      registry: options.controlPlane,
      relay: active.relayAddress,
      slots: options.slots,
      workDir,
      metrics: metricsServer && `http://${metricsServer.address}/metrics`,
    },
    'encode node ready',
  );

  let draining: Promise<void> | undefined;
  return {
    get address() {
      return active.relayAddress;
    },
    metricsAddress: metricsServer?.address,
    revoked: active.revoked,
    get nodeId() {
      return active.nodeId;
    },
    drain() {
      draining ??= (async () => {
        const idle = jobs.drain();
        active.beatNow();
        logger.info({ nodeId: active.nodeId, running: jobs.activeJobIds() }, 'draining: finishing running jobs');
        await idle;
        renewal?.stop();
        await active.stop();
        await active.deregister();
        active.disconnect();
        injector.destroy();
        await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
        active.registry.close();
        await metricsServer?.stop();
        await rm(workDir, { recursive: true, force: true });
        logger.info({ nodeId: active.nodeId }, 'drained');
      })();
      return draining;
    },
  };
}
