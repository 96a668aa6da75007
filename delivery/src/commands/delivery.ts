import { Command } from '@oclif/core';

export default class Delivery extends Command {
  static override description =
    'Run a delivery node: HLS playlists, segments and thumbnails from storage through a local cache, playback-token checks, segment logs to ClickHouse. Configured by DELIVERY_HOST, DELIVERY_PORT (7081), DATABASE_URL, S3_*, CONTROL_PLANE_URL, CLICKHOUSE_URL, DELIVERY_CACHE_DIR, DELIVERY_SPOOL_DIR (`kino config check delivery` checks them).';
  static override enableJsonFlag = false;

  async run(): Promise<void> {
    const { exitOnConfigError, runProcess } = await import('@kino/infra');
    const { createDeliveryLogger, parseDeliveryConfig, startDelivery } = await import('../index.ts');
    // The same parse as `kino config check delivery`.
    const config = exitOnConfigError(() => parseDeliveryConfig(process.env));
    const logger = createDeliveryLogger(config);
    await runProcess({ name: 'delivery node', logger, start: () => startDelivery(config, logger) });
  }
}
