// The ingest process's configuration (environment variables), read once at start.
import { join } from 'node:path';
import { env, kinoDir, parseConfig, z } from '@kino/infra';

export const ingestConfigShape = {
  /** Where publishers connect: every interface of a public ingest host, loopback in the dev stack. */
  INGEST_HOST: z.string().default('127.0.0.1'),
  /** RTMP's own port; OBS and ffmpeg assume it when a URL names none. */
  INGEST_RTMP_PORT: env.port(1935),
  /** SRT's UDP port (`srt://host:9710?streamid=<key>`, the API's LIVE_SRT_URL). */
  INGEST_SRT_PORT: env.port(9710),
  DATABASE_URL: z.string().min(1),
  /** The RTMP library's own small state (its session history); nothing of a broadcast is kept here. */
  INGEST_STATE_DIR: z.string().default(join(kinoDir, 'ingest')),
  /**
   * How often ingest reads the streams it is receiving: a publisher whose stream was disabled or
   * whose key was reset is cut off within this.
   */
  INGEST_KEY_CHECK_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  /**
   * How long a broadcast stays this ingest's without a renewal (the key watch renews it every
   * INGEST_KEY_CHECK_MS): an ingest that dies leaves its streams active this long at most.
   */
  INGEST_LEASE_MS: z.coerce.number().int().min(1000).max(600_000).default(10_000),
  /** Where each broadcast's workflow is started (liveBroadcast, on the orchestrators' task queue). */
  TEMPORAL_ADDRESS: env.hostPort(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  /**
   * The delivery host's public URL, as the API's: the live stream webhooks ingest sends carry the
   * stream as the API answers it, its playback URL on this host.
   */
  DELIVERY_URL: env.url().transform((url) => url.replace(/\/$/, '')),
  /**
   * The RTMP base encode nodes reach this ingest at (`rtmp://ingest-1.internal:1935`): a node plays
   * each broadcast from here. Unset: `rtmp://INGEST_HOST:INGEST_RTMP_PORT`, right where nodes run on
   * the ingest's host or network (the dev stack).
   */
  INGEST_RELAY_URL: z
    .string()
    .regex(/^rtmp:\/\/[^/\s]+$/, 'expected rtmp://HOST[:PORT], no path')
    .optional(),
  /**
   * How much of a broadcast ingest keeps from its start until the farm's encoder reads it (its first
   * seconds, which the encoder attaches after): 64 MiB, about 80 s of a 6 Mbit/s stream.
   */
  INGEST_BACKLOG_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024),
  LOG_LEVEL: env.logLevel(),
};
export type IngestConfig = z.infer<z.ZodObject<typeof ingestConfigShape>>;

/** An ingest's configuration, or a ConfigError naming every problem: `kino ingest` and `kino config check ingest` both call this. */
export function parseIngestConfig(source: Record<string, string | undefined> = process.env): IngestConfig {
  return parseConfig(ingestConfigShape, source);
}
