// The delivery node's configuration (environment variables; see the brief's process contract).
import { hostname } from 'node:os';
import { join } from 'node:path';
import { env, kinoDir, metricsConfigShape, parseConfig, storageConfigShape, z } from '@kino/infra';

export const deliveryConfigShape = {
  DELIVERY_HOST: z.string().default('127.0.0.1'),
  DELIVERY_PORT: env.port(7081),
  DATABASE_URL: z.string().min(1),
  ...storageConfigShape,
  /** The API base (…/v1/api): the JWKS is read from CONTROL_PLANE_URL/.well-known/jwks.json. */
  CONTROL_PLANE_URL: env.url(),
  CLICKHOUSE_URL: env.url(),
  DELIVERY_CACHE_DIR: z.string().default(join(kinoDir, 'delivery', 'cache')),
  DELIVERY_SPOOL_DIR: z.string().default(join(kinoDir, 'delivery', 'spool')),
  /** Bound of the local disk cache. */
  DELIVERY_CACHE_MAX_MB: z.coerce.number().int().min(16).default(4096),
  /** Bound of the in-memory hot set (small objects). */
  DELIVERY_MEMORY_CACHE_MB: z.coerce.number().int().min(0).default(256),
  /** How long a video's metadata is reused: a deleted video stops playing within this. */
  DELIVERY_METADATA_TTL_MS: z.coerce.number().int().min(0).max(5000).default(2000),
  /** How often segment rows are shipped to ClickHouse. */
  DELIVERY_LOG_SHIP_INTERVAL_MS: z.coerce.number().int().min(50).default(1000),
  /**
   * How long a request for a segment still being made (just in time) waits for it before answering
   * 503 with Retry-After (segment-waits.ts).
   */
  DELIVERY_SEGMENT_WAIT_SECONDS: z.coerce.number().int().min(1).max(600).default(60),
  /**
   * Beacon requests a second one client address may make (routes/beacons.ts; twice this in a burst).
   * A player sends one every 10 s: 50 a second is 500 players behind one address.
   */
  DELIVERY_BEACONS_PER_SECOND: z.coerce.number().int().min(1).default(50),
  /**
   * The load balancers or reverse proxies in front of this node (addresses, CIDR ranges): their
   * X-Forwarded-For names the viewer, for the per-address beacon limit (client-address.ts). Empty:
   * the socket's address, and the header is ignored.
   */
  DELIVERY_TRUSTED_PROXIES: env.trustedProxies(),
  /** Names this node in segment rows; defaults to host:port. */
  DELIVERY_NODE_ID: z.string().optional(),
  ...metricsConfigShape,
  LOG_LEVEL: env.logLevel(),
};
export type DeliveryConfig = z.infer<z.ZodObject<typeof deliveryConfigShape>>;

/** A delivery node's configuration, or a ConfigError naming every problem: `kino delivery` and `kino config check delivery` both call this. */
export function parseDeliveryConfig(source: Record<string, string | undefined> = process.env): DeliveryConfig {
  return parseConfig(deliveryConfigShape, source);
}

export function nodeIdOf(config: DeliveryConfig): string {
  return config.DELIVERY_NODE_ID ?? `${hostname()}:${config.DELIVERY_PORT}`;
}

export function jwksUrlOf(config: DeliveryConfig): URL {
  return new URL(`${config.CONTROL_PLANE_URL.replace(/\/+$/, '')}/.well-known/jwks.json`);
}
