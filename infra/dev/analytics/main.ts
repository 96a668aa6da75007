// `kino analytics`: the embedded analytics store of the dev stack (chDB behind ClickHouse's HTTP
// interface). Point every other process's CLICKHOUSE_URL at http://ANALYTICS_HOST:ANALYTICS_PORT.
import { join } from 'node:path';
import { ClickHouseHttp } from '../../src/clickhouse.ts';
import { env, loadConfig, z } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { kinoDir } from '../../src/paths.ts';
import { startChdbHttpServer } from './chdb-http-server.ts';
import { migrateClickHouse } from '../../src/analytics/migrations.ts';

export const analyticsConfigShape = {
  ANALYTICS_HOST: z.string().default('127.0.0.1'),
  ANALYTICS_PORT: env.port(7123),
  ANALYTICS_DATA_DIR: z.string().default(join(kinoDir, 'analytics')),
  LOG_LEVEL: env.logLevel(),
};

export async function runAnalyticsServer(): Promise<void> {
  const config = loadConfig(analyticsConfigShape);
  const logger = createLogger('analytics', config.LOG_LEVEL);
  const server = await startChdbHttpServer({
    dataDir: config.ANALYTICS_DATA_DIR,
    host: config.ANALYTICS_HOST,
    port: config.ANALYTICS_PORT,
    logger,
  });
  const migrated = await migrateClickHouse(new ClickHouseHttp(server.url));
  logger.info({ url: server.url, dataDir: config.ANALYTICS_DATA_DIR, migrated }, 'analytics store (chDB) listening');
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'stopping');
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
