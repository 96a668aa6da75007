import { KinoCommand } from '../base-command.ts';

export default class Analytics extends KinoCommand {
  static override description =
    'Run the embedded analytics store: chDB behind ClickHouse\'s HTTP interface (ANALYTICS_HOST, ANALYTICS_PORT=7123, ANALYTICS_DATA_DIR). Other processes reach it through CLICKHOUSE_URL.';
  static override enableJsonFlag = false;

  async run(): Promise<void> {
    const { runAnalyticsServer } = await import('@kino/infra/dev');
    await runAnalyticsServer();
  }
}
