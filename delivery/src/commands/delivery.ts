import { Command } from '@oclif/core';

export default class Delivery extends Command {
  static override description =
    'Run a delivery node: HLS playlists, segments and thumbnails from storage through a local cache, playback-token checks, segment logs to ClickHouse. Configured by DELIVERY_HOST, DELIVERY_PORT (7081), DATABASE_URL, S3_*, CONTROL_PLANE_URL, CLICKHOUSE_URL, DELIVERY_CACHE_DIR, DELIVERY_SPOOL_DIR.';
  static override enableJsonFlag = false;

  async run(): Promise<void> {
    const { loadConfig, runProcess } = await import('@kino/infra');
    const { createDeliveryLogger, deliveryConfigShape, startDelivery } = await import('../index.ts');
    const config = loadConfig(deliveryConfigShape);
    const logger = createDeliveryLogger(config);
    await runProcess({ name: 'delivery node', logger, start: () => startDelivery(config, logger) });
  }
}
