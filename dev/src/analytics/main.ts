// The dev stack's embedded analytics store, which `kino analytics-store` runs (chDB behind ClickHouse's HTTP
// interface). Point every other process's CLICKHOUSE_URL at http://ANALYTICS_HOST:ANALYTICS_PORT.
import { join } from 'node:path';
import { env, kinoDir, z, type Logger, type RunningProcess } from '@kino/infra';
import { startChdbHttpServer } from './chdb-http-server.ts';

export const analyticsConfigShape = {
  ANALYTICS_HOST: z.string().default('127.0.0.1'),
  ANALYTICS_PORT: env.port(7123),
  ANALYTICS_DATA_DIR: z.string().default(join(kinoDir, 'analytics')),
  LOG_LEVEL: env.logLevel(),
};

export type AnalyticsConfig = z.infer<z.ZodObject<typeof analyticsConfigShape>>;

/** Starts the store; stop() closes it. The API creates the analytics schema (the one process that migrates it). */
export async function startAnalyticsStore(config: AnalyticsConfig, logger: Logger): Promise<RunningProcess> {
  const server = await startChdbHttpServer({
    dataDir: config.ANALYTICS_DATA_DIR,
    host: config.ANALYTICS_HOST,
    port: config.ANALYTICS_PORT,
    logger,
  });
  logger.info({ url: server.url, dataDir: config.ANALYTICS_DATA_DIR }, 'analytics store (chDB) listening');
  return { stop: () => server.close() };
}
