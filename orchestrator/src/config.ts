// The orchestrator process's configuration: one zod shape whose keys are the environment variables.
import { env, metricsConfigShape, parseConfig, storageConfigShape, z } from '@kino/infra';
import { isKeyEncryptionKey } from '@kino/database';
import { defaultChunkSeconds, defaultJustInTimeRunSeconds } from './chunks.ts';
import { defaultTranscriptPieceSeconds } from '@kino/proto/contract';

export const orchestratorConfigShape = {
  DATABASE_URL: z.string().min(1),
  TEMPORAL_ADDRESS: env.hostPort().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  ...storageConfigShape,
  /** The NodeRegistry gRPC server this process hosts; encode nodes register here. */
  REGISTRY_HOST: z.string().min(1).default('127.0.0.1'),
  REGISTRY_PORT: env.port(7090),
  /**
   * The node relay (on REGISTRY_HOST): every orchestrator calls an encode node through the relay of
   * the orchestrator holding the node's connection, so it must be reachable from the other
   * orchestrators (never from outside the private network). 0: any free port.
   */
  RELAY_PORT: env.port(7092),
  /** HOST:PORT the other orchestrators reach this relay on; default REGISTRY_HOST:RELAY_PORT, or this machine's first non-internal IPv4 when REGISTRY_HOST is 0.0.0.0. */
  RELAY_ADVERTISE: env.hostPort().optional(),
  /** The metrics server (`GET /metrics`, on REGISTRY_HOST): the orchestrator has no other HTTP port. 0: any free port (logged at start). */
  ORCHESTRATOR_METRICS_PORT: env.port(7091),
  ...metricsConfigShape,
  /**
   * Nodes join with a credential of their own (`kino admin nodes enroll`) over TLS once the farm has
   * its certificate authority (`kino admin bootstrap`). True: a farm without one runs on plaintext,
   * its nodes registering with the shared NODE_TOKEN, as before issue 54 (farms upgrading; the dev
   * stack). Off in the deployment files.
   */
  REGISTRY_ACCEPT_NODE_TOKEN: env.bool(false),
  /** The shared farm token (REGISTRY_ACCEPT_NODE_TOKEN): nodes present it to register, the orchestrator to nodes. */
  NODE_TOKEN: z.string().min(8, 'NODE_TOKEN must be at least 8 characters').optional(),
  /**
   * The host names and addresses nodes dial the registry at, comma-separated: the registry's
   * certificate names them. Default: REGISTRY_HOST (unless it is a wildcard).
   */
  REGISTRY_TLS_NAMES: env.list().optional(),
  /**
   * The operator's own certificate for the registry, instead of the one the farm CA issues it at each
   * start (PEM files, both or neither): the certificate file holds the chain in order, the registry's
   * certificate first and the root it leads to last. Enrollment tokens must then pin that root
   * (`kino admin nodes enroll --registry-ca root.pem`). Nodes' certificates stay the farm CA's.
   */
  REGISTRY_TLS_CERT_FILE: z.string().min(1).optional(),
  REGISTRY_TLS_KEY_FILE: z.string().min(1).optional(),
  /**
   * How long the certificates the registry issues nodes last (at enrollment and at each renewal, which
   * nodes ask for with a fifth of the life left): 90 days, so a stolen node key is good for a season
   * at most (revocation ends one at once). Fractions of a day are taken (tests use seconds).
   */
  NODE_CERTIFICATE_DAYS: z.coerce.number().positive().max(3650).default(90),
  /** A node silent for longer than this is dropped and gets no more work. */
  NODE_HEARTBEAT_TIMEOUT_MS: z.coerce.number().int().min(1000).default(10_000),
  /**
   * How a video's renditions are grouped into encodes. `ladder`: one encode activity per video
   * makes every rendition from one decode of the source (one ffmpeg process on one node slot).
   * `rendition`: one encode activity per rendition, fanned out over the nodes (more parallelism
   * across machines, but the source is decoded once per rendition). `auto` (default): `ladder`
   * when at most one node is live (one machine: one decode wins), `rendition` when several are.
   */
  ENCODE_GROUPING: z.enum(['auto', 'ladder', 'rendition']).default('auto'),
  /**
   * Videos longer than this are cut into chunks of this length (rounded down to a multiple of the
   * 6 s segment), each encoded on any node (docs/architecture.md#chunked-encoding). 0: never.
   */
  ENCODE_CHUNK_SECONDS: z.coerce.number().int().min(0).default(defaultChunkSeconds),
  /**
   * Captions from speech: a video longer than one and a half times this is transcribed in pieces of
   * about this length on any nodes at once, joined at silences (docs/decisions/captions.md). 0: never.
   */
  CAPTIONS_PIECE_SECONDS: z.coerce.number().min(0).default(defaultTranscriptPieceSeconds),
  /**
   * Just-in-time segments, the farm's default (docs/decisions/just-in-time.md): on (the default), a
   * video turns `ready` once its first segment is made, the rest is made in the background in
   * playback order and any segment a viewer asks for first; off, a video turns `ready` with its
   * whole ladder. An environment's own setting (justInTime on the environment) overrides it.
   */
  JUST_IN_TIME: env.bool(true),
  /** The segments one just-in-time run makes after the first (a multiple of 6 s). */
  JUST_IN_TIME_RUN_SECONDS: z.coerce.number().int().min(6).default(defaultJustInTimeRunSeconds),
  /**
   * Just in time, the first segment is also made as 2 s bootstrap segments (issue 55): on (the
   * default), a video is `ready` with its first 2 s. Off only to measure what they cost (npm run
   * bench:startup -- --parts cpu): the first run then makes the whole 6 s segment.
   */
  JUST_IN_TIME_BOOTSTRAP: env.bool(true),
  /**
   * Deliver webhooks to any address, loopback and private networks included. Off (the default): only
   * public addresses, checked after DNS at each delivery (docs/security.md). The dev stack turns it on.
   */
  WEBHOOK_ALLOW_PRIVATE: env.bool(false),
  /**
   * The API's public delivery URL and key encryption key: the processing events' `data` is the
   * video's details, whose thumbnail, storyboard, audio and caption URLs are built on the first and
   * (for a private video) signed with the playback key the second opens. The same values as the API's.
   */
  DELIVERY_URL: env.url().transform((url) => url.replace(/\/$/, '')),
  KINO_KEY_ENCRYPTION_KEY: z
    .string()
    .refine(isKeyEncryptionKey, { message: 'expected 32 random bytes in base64 (openssl rand -base64 32)' }),
  LOG_LEVEL: env.logLevel(),
};

export type OrchestratorConfig = z.infer<z.ZodObject<typeof orchestratorConfigShape>>;

/** The orchestrator's configuration, or a ConfigError naming every problem: its start and `kino config check orchestrator` both call this. */
export function parseOrchestratorConfig(source: Record<string, string | undefined> = process.env): OrchestratorConfig {
  return parseConfig(orchestratorConfigShape, source, [
    (values) =>
      ['true', '1'].includes(values.REGISTRY_ACCEPT_NODE_TOKEN ?? '') && !values.NODE_TOKEN
        ? ['NODE_TOKEN: required with REGISTRY_ACCEPT_NODE_TOKEN=true (the shared token nodes present)']
        : [],
    (values) =>
      Boolean(values.REGISTRY_TLS_CERT_FILE) === Boolean(values.REGISTRY_TLS_KEY_FILE)
        ? []
        : ['REGISTRY_TLS_CERT_FILE, REGISTRY_TLS_KEY_FILE: give both (the certificate chain and its key) or neither'],
  ]);
}

/** The operator's own registry certificate files, when given (both are, or the parse refused). */
export function operatorCertificateFiles(
  config: Pick<OrchestratorConfig, 'REGISTRY_TLS_CERT_FILE' | 'REGISTRY_TLS_KEY_FILE'>,
): { certificateFile: string; keyFile: string } | undefined {
  return config.REGISTRY_TLS_CERT_FILE && config.REGISTRY_TLS_KEY_FILE
    ? { certificateFile: config.REGISTRY_TLS_CERT_FILE, keyFile: config.REGISTRY_TLS_KEY_FILE }
    : undefined;
}

/** What the farm's TLS is loaded with at start (registry/farm-tls.ts's loadFarmTls). */
export function farmTlsSettings(config: OrchestratorConfig) {
  return {
    keyEncryptionKey: config.KINO_KEY_ENCRYPTION_KEY,
    names: registryTlsNames(config),
    acceptNodeToken: config.REGISTRY_ACCEPT_NODE_TOKEN,
    operatorCertificate: operatorCertificateFiles(config),
    nodeCertificateDays: config.NODE_CERTIFICATE_DAYS,
  };
}

/** The names of the registry's certificate: REGISTRY_TLS_NAMES, else REGISTRY_HOST unless it is a wildcard. */
export function registryTlsNames(config: Pick<OrchestratorConfig, 'REGISTRY_TLS_NAMES' | 'REGISTRY_HOST'>): string[] {
  if (config.REGISTRY_TLS_NAMES?.length) return config.REGISTRY_TLS_NAMES;
  return ['0.0.0.0', '::', ''].includes(config.REGISTRY_HOST) ? [] : [config.REGISTRY_HOST];
}
