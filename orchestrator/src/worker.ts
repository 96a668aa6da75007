// The orchestrator process: opens the database (and migrates it), hosts the NodeRegistry gRPC
// server encode nodes register with, and runs the Temporal worker of task queue `kino-videos`
// (workflows + activities). SIGTERM / SIGINT stop it cleanly: the worker finishes its workflow
// tasks, running activities are cancelled after a short grace (Temporal retries them elsewhere),
// then the registry and the database close.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import {
  Storage,
  createLogger,
  createMetricsRegistry,
  databaseConnectionErrors,
  startMetricsServer,
  type Logger,
  type MetricsServer,
} from '@kino/infra';
import { migrateToLatest, openDatabase } from '@kino/database';
import { startRegistryServer } from './registry/index.ts';
import { loadFarmTls } from './registry/farm-tls.ts';
import { createActivities, type ActivityDeps } from './activities/index.ts';
import { farmTlsSettings, type OrchestratorConfig } from './config.ts';
import { videoTaskQueue } from '@kino/proto/contract';
import { createNodeFarm } from './node-farm.ts';
import { createOrchestratorMetrics, registerFarmGauges } from './metrics.ts';
import { loadWorkflowBundle, workflowBundleCacheDir } from './workflow-bundle.ts';

// The workflow code Temporal bundles: the TypeScript beside this file when it runs from sources, the
// compiled JavaScript when it runs from dist/ (`npm run build`).
export const workflowsPath = fileURLToPath(new URL(`./workflows/index${extname(import.meta.url)}`, import.meta.url));

export interface RunningOrchestrator {
  /** HOST:PORT of the NodeRegistry gRPC server. */
  registryAddress: string;
  /** HOST:PORT of the metrics server (`GET /metrics`). */
  metricsAddress: string;
  /** Resolves once the worker has stopped and everything is closed. */
  finished: Promise<void>;
  /** Stops the worker (as SIGTERM does) and resolves when everything is closed. */
  stop(): Promise<void>;
}

/** The farm's just-in-time settings, as the activities read them. */
function justInTimeOf(config: OrchestratorConfig): { enabled: boolean; runSeconds: number; bootstrap: boolean } {
  return {
    enabled: config.JUST_IN_TIME,
    runSeconds: config.JUST_IN_TIME_RUN_SECONDS,
    bootstrap: config.JUST_IN_TIME_BOOTSTRAP,
  };
}

/** Temporal's own logs (SDK, workflow `log`) go through the process's pino logger. */
function installTemporalRuntime(logger: Logger): void {
  const levels: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
    TRACE: 'trace',
    DEBUG: 'debug',
    INFO: 'info',
    WARN: 'warn',
    ERROR: 'error',
  };
  const temporalLog = logger.child({ component: 'temporal' });
  try {
    Runtime.install({
      logger: new DefaultLogger('INFO', ({ level, message, meta }) => temporalLog[levels[level]](meta ?? {}, message)),
      // Worker.runUntil / shutdown below own the signals; the default handlers would race them.
      shutdownSignals: [],
    });
  } catch {
    // Already installed in this process (tests run several orchestrators in one).
  }
}

export async function runOrchestrator(
  config: OrchestratorConfig,
  { logger = createLogger('orchestrator', config.LOG_LEVEL) }: { logger?: Logger } = {},
): Promise<RunningOrchestrator> {
  installTemporalRuntime(logger);
  const metricsRegistry = createMetricsRegistry();
  const db = await openDatabase(config.DATABASE_URL, {
    onConnectionError: databaseConnectionErrors(metricsRegistry, logger),
  });
  await migrateToLatest(db);
  const storage = new Storage(config);
  const metrics = createOrchestratorMetrics(metricsRegistry);

  const tls = await loadFarmTls(db, farmTlsSettings(config)).catch(async (error: unknown) => {
    await db.destroy();
    throw error;
  });
  // With TLS, nodes are their certificates: the shared token is not taken (node-identity.ts).
  const nodeToken = tls ? undefined : config.NODE_TOKEN;
  const registry = await startRegistryServer({
    db,
    host: config.REGISTRY_HOST,
    port: config.REGISTRY_PORT,
    relayPort: config.RELAY_PORT,
    ...(config.RELAY_ADVERTISE ? { relayAdvertise: config.RELAY_ADVERTISE } : {}),
    ...(nodeToken ? { token: nodeToken } : {}),
    ...(tls ? { tls } : {}),
    heartbeatTimeoutMs: config.NODE_HEARTBEAT_TIMEOUT_MS,
    logger: logger.child({ component: 'registry' }),
    heartbeats: metrics.heartbeats,
  });
  const farm = createNodeFarm({
    db,
    databaseUrl: config.DATABASE_URL,
    nodeToken,
    heartbeatTimeoutMs: config.NODE_HEARTBEAT_TIMEOUT_MS,
    logger: logger.child({ component: 'encode-queue' }),
  });
  registerFarmGauges(metricsRegistry, {
    db,
    heartbeatTimeoutMs: config.NODE_HEARTBEAT_TIMEOUT_MS,
    encodes: () => farm.encodes(),
  });

  let connection: NativeConnection | undefined;
  let metricsServer: MetricsServer | undefined;
  let worker: Worker;
  try {
    metricsServer = await startMetricsServer({
      registry: metricsRegistry,
      host: config.REGISTRY_HOST,
      port: config.ORCHESTRATOR_METRICS_PORT,
      token: config.METRICS_TOKEN,
    });
    connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
    worker = await Worker.create({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: videoTaskQueue,
      workflowBundle: await loadWorkflowBundle(workflowsPath, { cacheDir: workflowBundleCacheDir, logger }),
      activities: createActivities({
        db,
        storage,
        farm,
        logger,
        metrics,
        ...activitySettings(config),
      }),
      // Heartbeats reach Temporal (and cancellations reach activities) within seconds, not the
      // default 80 % of the heartbeat timeout.
      maxHeartbeatThrottleInterval: '2 seconds',
      // At shutdown, running encodes get this long, then are cancelled: another worker retries them.
      shutdownGraceTime: '5 seconds',
    });
  } catch (error) {
    await registry.stop();
    await metricsServer?.stop();
    await connection?.close();
    await db.destroy();
    throw error;
  }

  const metricsAddress = metricsServer.address;
  const finished = worker.run().finally(async () => {
    await registry.stop();
    await metricsServer.stop();
    await farm.close();
    await connection.close();
    await db.destroy();
    logger.info('orchestrator stopped');
  });
  logger.info(
    {
      taskQueue: videoTaskQueue,
      temporal: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
      registry: registry.address,
      metrics: `http://${metricsAddress}/metrics`,
    },
    'orchestrator running',
  );

  return {
    registryAddress: registry.address,
    metricsAddress,
    finished,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await finished;
    },
  };
}

/** The activities' settings from the process's configuration. */
function activitySettings(config: OrchestratorConfig) {
  return {
    encodeGrouping: config.ENCODE_GROUPING,
    chunkSeconds: config.ENCODE_CHUNK_SECONDS,
    transcriptPieceSeconds: config.CAPTIONS_PIECE_SECONDS,
    justInTime: justInTimeOf(config),
    webhookDestinations: { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
    videoDetails: { DELIVERY_URL: config.DELIVERY_URL, KINO_KEY_ENCRYPTION_KEY: config.KINO_KEY_ENCRYPTION_KEY },
  } satisfies Partial<ActivityDeps>;
}
