// `kino delivery`: one delivery node. Stateless apart from its cache and its segment-log spool;
// run as many as needed behind a load balancer, each with its own DELIVERY_SPOOL_DIR.
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { openDatabase } from '@kino/control-plane/db';
import { ClickHouseHttp, Storage, createLogger, loadConfig } from '@kino/infra';
import { deliveryConfigShape, jwksUrlOf, nodeIdOf } from './config.ts';
import { ObjectCache } from './object-cache.ts';
import { PlaybackTokenVerifier } from './playback-auth.ts';
import { SegmentLog } from './segment-log.ts';
import { createDeliveryServer } from './server.ts';
import { ThumbnailMaker } from './thumbnails.ts';
import { VideoCatalog } from './video-catalog.ts';

export async function runDelivery(): Promise<void> {
  const config = loadConfig(deliveryConfigShape);
  const nodeId = nodeIdOf(config);
  const logger = createLogger('delivery', config.LOG_LEVEL).child({ nodeId });
  const db = await openDatabase(config.DATABASE_URL);
  const storage = new Storage(config);
  const cache = new ObjectCache({
    storage,
    dir: config.DELIVERY_CACHE_DIR,
    maxBytes: config.DELIVERY_CACHE_MAX_MB * 1024 * 1024,
    memoryMaxBytes: config.DELIVERY_MEMORY_CACHE_MB * 1024 * 1024,
    logger,
  });
  await cache.init();
  const segments = SegmentLog.open({
    dir: config.DELIVERY_SPOOL_DIR,
    clickHouse: new ClickHouseHttp(config.CLICKHOUSE_URL),
    nodeId,
    shipIntervalMs: config.DELIVERY_LOG_SHIP_INTERVAL_MS,
    logger,
  });
  const server = createDeliveryServer({
    catalog: new VideoCatalog(db, config.DELIVERY_METADATA_TTL_MS),
    cache,
    tokens: new PlaybackTokenVerifier(jwksUrlOf(config)),
    segments,
    thumbnails: new ThumbnailMaker(cache, storage, join(config.DELIVERY_CACHE_DIR, 'tmp'), logger),
    logger,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.DELIVERY_PORT, config.DELIVERY_HOST, () => resolve());
  });
  const address = server.address() as AddressInfo;
  logger.info({ url: `http://${address.address}:${address.port}`, jwks: jwksUrlOf(config).href }, 'delivery node listening');

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: finishing requests, shipping segment rows');
    server.close();
    server.closeIdleConnections();
    void (async () => {
      await segments.close();
      await db.destroy();
      process.exit(0);
    })();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
