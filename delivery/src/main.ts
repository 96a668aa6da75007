// One delivery node (`kino delivery` runs it through runProcess). Stateless apart from its cache and
// its segment-log spool; run as many as needed behind a load balancer, each with its own
// DELIVERY_SPOOL_DIR.
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { openDatabase } from '@kino/database';
import { findPictureSource, findPlayableVideo, raiseSegmentPriority } from '@kino/database/repositories';
import { ClickHouseHttp } from '@kino/analytics';
import {
  Storage,
  createLogger,
  createMetricsRegistry,
  databaseConnectionErrors,
  type Logger,
  type RunningProcess,
} from '@kino/infra';
import { jwksUrlOf, nodeIdOf, type DeliveryConfig } from './config.ts';
import { createDeliveryMetrics } from './metrics.ts';
import { Mp4Downloads } from './mp4-download.ts';
import { ObjectCache } from './object-cache.ts';
import { BeaconLimiter } from './beacons.ts';
import { clientAddressReader } from './client-address.ts';
import { PlaybackTokenVerifier } from './playback-auth.ts';
import { PlaybackEventLog } from './playback-event-log.ts';
import { SegmentLog } from './segment-log.ts';
import { SegmentWaits } from './segment-waits.ts';
import { ShareLinkGate } from './share-links.ts';
import { createDeliveryServer } from './server.ts';
import { ThumbnailMaker } from './thumbnails.ts';
import { readPlayableVideo, VideoCatalog } from './video-catalog.ts';

/** How long the presigned URL a picture of any moment is decoded from stays valid. */
const pictureUrlSeconds = 600;

/** The node's logger: every line names the node. */
export function createDeliveryLogger(config: DeliveryConfig): Logger {
  return createLogger('delivery', config.LOG_LEVEL).child({ nodeId: nodeIdOf(config) });
}

/** Starts a delivery node; stop() finishes requests in flight and ships the spooled segment rows. */
export async function startDelivery(
  config: DeliveryConfig,
  logger: Logger = createDeliveryLogger(config),
): Promise<RunningProcess> {
  const nodeId = nodeIdOf(config);
  const registry = createMetricsRegistry();
  const db = await openDatabase(config.DATABASE_URL, { onConnectionError: databaseConnectionErrors(registry, logger) });
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
  // Beacon events have their own spool beside the segment rows' (row-spool.ts).
  const playbackEvents = PlaybackEventLog.open({
    dir: join(config.DELIVERY_SPOOL_DIR, 'playback-events'),
    clickHouse: new ClickHouseHttp(config.CLICKHOUSE_URL),
    shipIntervalMs: config.DELIVERY_LOG_SHIP_INTERVAL_MS,
    logger,
  });
  const counters = createDeliveryMetrics(registry, { cache, segments, playbackEvents });
  const server = createDeliveryServer({
    catalog: new VideoCatalog((videoId) => readPlayableVideo(db, videoId), config.DELIVERY_METADATA_TTL_MS),
    cache,
    tokens: new PlaybackTokenVerifier(jwksUrlOf(config)),
    segments,
    beacons: {
      log: playbackEvents,
      limiter: new BeaconLimiter(config.DELIVERY_BEACONS_PER_SECOND),
      clientAddress: clientAddressReader(config.DELIVERY_TRUSTED_PROXIES),
    },
    thumbnails: new ThumbnailMaker(cache, storage, join(config.DELIVERY_CACHE_DIR, 'tmp'), logger, async (videoId) => {
      const row = await findPictureSource(db, videoId);
      if (!row) return undefined;
      // Long enough for one decode; ffmpeg reads the source with range requests.
      const url = await storage.presignGet(row.storagePath, pictureUrlSeconds);
      const hdr = row.sourceDynamicRange === 'sdr' ? null : row.sourceDynamicRange;
      return {
        url,
        offsetSeconds: row.offsetSeconds,
        durationSeconds: row.durationSeconds,
        ...(hdr ? { toneMapFrom: hdr } : {}),
      };
    }),
    shareLinks: new ShareLinkGate(db, config.DELIVERY_METADATA_TTL_MS),
    downloads: new Mp4Downloads(cache, storage),
    segmentWaits: new SegmentWaits(
      {
        stored: async (key) => (await storage.head(key)) !== undefined,
        raise: ({ videoId, rendition, segment }) => raiseSegmentPriority(db, { videoId, rendition, segment }),
        progress: async (videoId) => {
          const row = await findPlayableVideo(db, videoId);
          return !row ? 'unplayable' : row.segments_pending ? 'pending' : 'complete';
        },
      },
      { deadlineMs: config.DELIVERY_SEGMENT_WAIT_SECONDS * 1000, metrics: counters.segmentWaits },
    ),
    logger,
    metrics: { counters, registry, token: config.METRICS_TOKEN },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.DELIVERY_PORT, config.DELIVERY_HOST, () => resolve());
  });
  const address = server.address() as AddressInfo;
  logger.info(
    { url: `http://${address.address}:${address.port}`, jwks: jwksUrlOf(config).href },
    'delivery node listening (metrics at /metrics)',
  );

  return {
    async stop() {
      logger.info('finishing requests, shipping segment rows and playback events');
      server.close();
      server.closeIdleConnections();
      await Promise.all([segments.close(), playbackEvents.close()]);
      await db.destroy();
    },
  };
}
