import { Command } from '@oclif/core';

export default class AnalyticsStore extends Command {
  static override description =
    "Run the embedded analytics store: chDB behind ClickHouse's HTTP interface (ANALYTICS_HOST, ANALYTICS_PORT=7123, ANALYTICS_DATA_DIR). Other processes reach it through CLICKHOUSE_URL.";
  static override enableJsonFlag = false;

  async run(): Promise<void> {
    const { createLogger, loadConfig, runProcess } = await import('@kino/infra');
    const { analyticsConfigShape, startAnalyticsStore } = await import('../analytics/main.ts');
    const config = loadConfig(analyticsConfigShape);
    const logger = createLogger('analytics', config.LOG_LEVEL);
    await runProcess({ name: 'analytics store', logger, start: () => startAnalyticsStore(config, logger) });
  }
}
