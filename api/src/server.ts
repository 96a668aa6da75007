// The API server: migrations, then listen; stop() closes it. `kino api` runs it (api/src/commands/api.ts).
import { Client, Connection } from '@temporalio/client';
import {
  ClickHouseHttp,
  migrateClickHouseInBackground,
  startPlaybackViewRefresher,
  startRollupRefresher,
} from '@kino/analytics';
import { createLogger, createMetricsRegistry, databaseConnectionErrors, Storage, type Logger } from '@kino/infra';
import { migrateToLatest, openDatabase, KeyEncryption, sealPlaintextSigningKeys } from '@kino/database';
import type { ApiConfig } from './config.ts';
import { API_PREFIX, buildApp, type ApiApp } from './app.ts';
import type { ApiDeps } from './deps.ts';
import { copyServedSegments } from './videos/served-segments.ts';

export interface RunningApi {
  app: ApiApp;
  /** The API root, ending in /v1/api. */
  url: string;
  stop(): Promise<void>;
}

export async function startApiServer(
  config: ApiConfig,
  { logger = createLogger('api', config.LOG_LEVEL), ...overrides }: { logger?: Logger } & Partial<ApiDeps> = {},
): Promise<RunningApi> {
  const metricsRegistry = createMetricsRegistry();
  const db = await openDatabase(config.DATABASE_URL, {
    onConnectionError: databaseConnectionErrors(metricsRegistry, logger),
  });
  await migrateToLatest(db);
  const sealed = await sealPlaintextSigningKeys(db, new KeyEncryption(config.KINO_KEY_ENCRYPTION_KEY));
  if (sealed > 0) logger.info({ sealed }, 'sealed playback signing keys stored in clear (KINO_KEY_ENCRYPTION_KEY)');
  const storage = new Storage(config);
  // Lazy: the API starts (and /health reports it) while Temporal is down; calls connect when it is back.
  const connection = Connection.lazy({ address: config.TEMPORAL_ADDRESS });
  const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  // Short timeout: a slow analytics store costs a view estimate, never a listing.
  const clickhouse = config.CLICKHOUSE_URL ? new ClickHouseHttp(config.CLICKHOUSE_URL, 5000) : undefined;
  // The API is the one process that migrates the analytics schema, as it migrates PostgreSQL
  // (delivery nodes only check it is there and keep their rows spooled until it is). Not awaited:
  // the API starts whether or not the store is up yet, retries until it answers, and reports
  // analytics failing in /health until the schema is there.
  const schema = clickhouse
    ? migrateClickHouseInBackground(clickhouse, {
        onMigrated: (migrated) => logger.debug({ migrated }, 'analytics schema current'),
        onError: (error) =>
          logger.warn(
            { err: error },
            'analytics schema not checked (store unreachable); served counts show 0 until it is',
          ),
      })
    : undefined;
  // The API process keeps the analytics rollup current (@kino/analytics' rollups.ts): it is
  // the process that reads it, every instance may run it (passes are idempotent), and it needs
  // nothing but the store. Failures (store down, schema not there yet) are retried each tick.
  // Its own client: recomputing a backfilled year takes longer than a request may wait.
  const rollupClient = config.CLICKHOUSE_URL ? new ClickHouseHttp(config.CLICKHOUSE_URL, 600_000) : undefined;
  const refresher = rollupClient
    ? startRollupRefresher(rollupClient, {
        intervalMs: config.ANALYTICS_ROLLUP_INTERVAL_MS,
        onError: (error) => logger.warn({ err: error }, 'analytics rollup refresh failed; retrying'),
        afterRecompute: copyServedSegments(db, rollupClient),
      })
    : undefined;
  // Views reported by players become playback_views rows once they end or go quiet (playback-fold.ts),
  // in the same process and for the same reasons as the rollups.
  const viewFolder = rollupClient
    ? startPlaybackViewRefresher(rollupClient, {
        intervalMs: config.PLAYBACK_FOLD_INTERVAL_MS,
        quietSeconds: config.PLAYBACK_VIEW_QUIET_SECONDS,
        onError: (error) => logger.warn({ err: error }, 'folding playback views failed; retrying'),
      })
    : undefined;
  const app = await buildApp({
    db,
    storage,
    temporal,
    clickhouse,
    analyticsSchemaMigrated: schema?.migrated,
    config,
    logger,
    metricsRegistry,
    ...overrides,
  });
  await app.listen({ host: config.API_HOST, port: config.API_PORT });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.API_PORT;
  const url = `http://${config.API_HOST.includes(':') ? `[${config.API_HOST}]` : config.API_HOST}:${port}${API_PREFIX}`;
  logger.info({ url, metrics: `${url.slice(0, -API_PREFIX.length)}/metrics` }, 'API listening');
  return {
    app,
    url,
    async stop() {
      schema?.stop();
      refresher?.stop();
      viewFolder?.stop();
      await app.close();
      await connection.close().catch(() => undefined);
      storage.close();
      await clickhouse?.close();
      await rollupClient?.close();
      await db.destroy();
    },
  };
}
