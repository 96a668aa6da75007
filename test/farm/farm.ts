// A whole transcoding farm for end-to-end tests, started by the dev stack's launcher (support/stack.ts),
// every part a real separate process: PostgreSQL,
// the Temporal dev server, SeaweedFS (S3 that checks signatures), `kino api`, `kino orchestrator`
// and any number of `kino node start`. The tenant and its key come from the operators' commands
// (`kino admin ...`); videos go in the way users send them, through the SDK: an upload URL, a PUT
// to storage, the process call. Tests observe through the SDK, and through the database, storage
// and Temporal for what the API does not show (slots, node states, workflow history).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Kino } from '@kino/sdk';
import { ClickHouseHttp } from '@kino/analytics';
import { parseConfig, Storage, storageConfigShape } from '@kino/infra';
import { freePort, kinoBin, waitFor, type ManagedProcess } from '@kino/dev';
import { objectKeys, workflowIds } from '@kino/proto/contract';
import { openDatabase, type Db } from '@kino/database';
import type { TestServices } from '@kino/test/support/services';
import { startTestStack } from '@kino/test/support/stack';
import type { DevStackLauncher, DevStackOptions, StackHost } from '@kino/dev/stack';

export { kinoBin };

export interface FarmNodeProcess {
  name: string;
  nodeId: string;
  address: string;
  /** Its Prometheus metrics (`http://HOST:PORT/metrics`). */
  metricsUrl: string;
  process: ManagedProcess;
  logFile: string;
}

/** One encode as the node ran it: when its slot went to the job, and when the job ended (done or not). */
export interface NodeJob {
  jobId: string;
  /** The encode's kind: `whole`, `chunk` or `audioTrack` (a chunked video's audio track, or an audio.m4a). */
  kind?: string;
  startedAt: number;
  endedAt?: number;
}

/**
 * The encodes a node ran, in start order, from its own log (`encode started`, then `encode done`,
 * `encode failed` or `encode cancelled by the caller`): the node's slot timeline.
 */
export async function nodeJobs(node: FarmNodeProcess): Promise<NodeJob[]> {
  const jobs: NodeJob[] = [];
  for (const line of (await readFile(node.logFile, 'utf8')).split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; jobId?: string; time?: number; nodeId?: string; job?: string };
    if (!entry.jobId || entry.time === undefined || entry.nodeId !== node.nodeId) continue;
    if (entry.msg === 'encode started')
      jobs.push({ jobId: entry.jobId, startedAt: entry.time, ...(entry.job ? { kind: entry.job } : {}) });
    else if (/^encode (done|failed|cancelled)/.test(entry.msg ?? '')) {
      const job = jobs.findLast((j) => j.jobId === entry.jobId && j.endedAt === undefined);
      if (job) job.endedAt = entry.time;
    }
  }
  return jobs;
}

/** Where a part of the farm (`delivery`, `orchestrator`, ...) writes its log. */
export function partLogFile(farm: Pick<Farm, 'launcher'>, part: string): string {
  return join(farm.launcher.layout.logsDir, `${part}.log`);
}

/**
 * A part's log lines at pino level `level` or above (40 warn, 50 error) written since `since` (ms):
 * what a failed test prints beside its own message. A line still being written is left out.
 */
export async function logLinesSince(
  farm: Pick<Farm, 'launcher'>,
  part: string,
  { since, level = 40 }: { since: number; level?: number },
): Promise<string[]> {
  const lines = (await readFile(partLogFile(farm, part), 'utf8')).split('\n').slice(0, -1);
  return lines.filter((line) => {
    if (!line.startsWith('{')) return false;
    const entry = JSON.parse(line) as { level?: number; time?: number };
    return (entry.level ?? 0) >= level && (entry.time ?? 0) >= since;
  });
}

export interface RunningEncode {
  videoId: string;
  nodeId: string;
}

/**
 * The encodes running on a node, once `count` of them are: their activity's heartbeat names the
 * node (the first beat goes out as the call starts; Temporal throttles the later ones to every 16 s,
 * so a short encode may never show a percent above 0) and is not near its end.
 */
export async function waitForRunningEncodes(farm: Farm, videoIds: string[], count: number): Promise<RunningEncode[]> {
  return waitFor(
    `${count} encodes to report progress`,
    async () => {
      const running: RunningEncode[] = [];
      for (const videoId of videoIds) {
        const description = await farm.temporal.workflow.getHandle(`video:${videoId}`).describe();
        for (const activity of description.raw.pendingActivities ?? []) {
          const payload = activity.heartbeatDetails?.payloads?.[0];
          if (!payload?.data) continue;
          const details = JSON.parse(Buffer.from(payload.data).toString('utf8')) as { nodeId: string; percent: number };
          if (details.nodeId && details.percent < 80) running.push({ videoId, nodeId: details.nodeId });
        }
      }
      return running.length >= count ? running : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 100 },
  );
}

export interface VideoOptions {
  quality?: 'standard' | 'high' | 'ultra';
  compressionRatio?: string;
  maxFrameRate?: number;
  maxEdgeLength?: number;
  /** The process request's other options, passed as they are. */
  pixelFormat?: string;
  rateControlMode?: 'constantBitrate' | 'variableBitrate';
  twoPassVBREncoding?: boolean;
  audioCodec?: string;
  encodingMode?: 'fixed' | 'contentAware';
  additionalCodecs?: ('hevc' | 'av1')[];
}

/**
 * A farm as one tenant sees it: the SDK with an organization, an environment and a full-access key,
 * and the database, storage and Temporal to observe what the API does not show. A file on the
 * shared farm (shared-farm.ts) gets only this; a file with a farm of its own gets a Farm.
 */
export interface FarmTenant {
  db: Db;
  storage: Storage;
  temporal: Client;
  /** The SDK, with the tenant's full-access key and the stack's operator token (`kino.nodes`). */
  kino: Kino;
  /** That key, for calls made without the SDK (what a client sees on the wire). */
  apiKey: string;
  orgId: string;
  envId: string;
  /** The API root (…/v1/api). */
  apiUrl: string;
  /** With `playback`: the delivery node the API's playback URLs point at, and the analytics store. */
  deliveryUrl?: string;
  clickhouse?: ClickHouseHttp;
  /**
   * Through the SDK: an upload URL, the PUT of `body` to storage, the process call. Returns the video
   * id. `beforeProcess` runs between the upload and the process call (a test that hangs a node to hold
   * the video's first job there starts the hang's clock as late as it can).
   */
  submitVideo(
    body: Uint8Array,
    options?: VideoOptions & { filename?: string; beforeProcess?: () => void | Promise<void> },
  ): Promise<string>;
  /** Polls the video's details (SDK) until it is `status`; fails early if it ends otherwise. */
  waitForStatus(videoId: string, status: 'ready' | 'failed', timeoutMs?: number): Promise<{ failureReason?: string }>;
  /** Downloads every object under `videos/{id}/` into `dir`, keeping the layout below `videos/{id}/`. */
  downloadVideo(videoId: string, dir: string): Promise<string[]>;
  /** Each activity type's scheduled count, from the video's processVideo history. */
  scheduledActivities(videoId: string): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

export interface Farm extends FarmTenant {
  /** The dev stack's launcher that runs this farm (kill -9 and restart any part by name). */
  launcher: DevStackLauncher;
  services: TestServices;
  /** The environment the farm's processes share (DATABASE_URL, TEMPORAL_ADDRESS, S3_*, NODE_TOKEN, ...). */
  env: Record<string, string>;
  /** The stack's operator token (`kino nodes`, the operators' routes). */
  operatorToken: string;
  nodeToken: string;
  registryAddress: string;
  orchestrator: ManagedProcess;
  api: ManagedProcess;
  /** Where each process of the stack serves its metrics, by part (api, orchestrator, delivery, analytics; nodes: FarmNodeProcess). */
  metricsUrls: Record<string, string>;
  /** Restarts the orchestrator, with more settings for this start when given (e.g. ENCODE_CHUNK_SECONDS). */
  startOrchestrator(env?: Record<string, string>): Promise<ManagedProcess>;
  /** Another host (see test/support/network-hosts.ts) and interface: default the control plane's. */
  startNode(
    name: string,
    options?: {
      slots?: number;
      threads?: number;
      host?: StackHost;
      /** Default true; false: a node without NODE_QUALITY_FFMPEG (no AV1, no quality scores). */
      qualityFfmpeg?: boolean;
      /** A farm with its CA: the node joins over TLS with this enrollment token and state directory. */
      enroll?: { token: string; stateDir: string };
    },
  ): Promise<FarmNodeProcess>;
}

export async function startFarm({
  heartbeatTimeoutMs = 3_000,
  playback = false,
  orchestratorEnv = {},
  apiEnv = {},
  hosts,
  temporalServer,
  durable = false,
  ingest = false,
  speech = false,
}: {
  /** Also `kino ingest`, RTMP publishers in (live streams; the farm's LIVE_RTMP_URL). */
  ingest?: boolean;
  /** The nodes' speech engine (captions from speech). */
  speech?: boolean;
  /**
   * PostgreSQL syncing its commits (default off, for speed). A test that kills PostgreSQL with -9
   * needs it: without synchronous_commit a crash loses commits it had already acknowledged.
   */
  durable?: boolean;
  /** The Temporal server: the dev server (default) or the production server on PostgreSQL. */
  temporalServer?: DevStackOptions['temporal'];
  /** The control plane and delivery on hosts of their own (network namespaces) rather than loopback. */
  hosts?: DevStackOptions['hosts'];
  heartbeatTimeoutMs?: number;
  /** More orchestrator settings (e.g. ENCODE_CHUNK_SECONDS). */
  orchestratorEnv?: Record<string, string>;
  /** More API settings (e.g. RATE_LIMITS). */
  apiEnv?: Record<string, string>;
  /** Also a delivery node and the analytics store (chDB behind `kino analytics-store`). */
  playback?: boolean;
} = {}): Promise<Farm> {
  // Nodes are started by each test (startNode), each with its name as a label.
  const stack = await startTestStack({
    nodes: 0,
    without: playback ? [] : ['delivery'],
    analytics: playback ? 'chdb' : 'none',
    env: { orchestrator: { NODE_HEARTBEAT_TIMEOUT_MS: String(heartbeatTimeoutMs), ...orchestratorEnv }, api: apiEnv },
    hosts,
    temporal: temporalServer,
    durable,
    ingest,
    speech,
  });
  const { launcher, status, env } = stack;
  const services: TestServices = {
    dir: stack.dir,
    databaseUrl: env.DATABASE_URL!,
    temporalAddress: env.TEMPORAL_ADDRESS!,
    storage: stack.storage,
    stop: stack.stop,
  };
  // The dev stack's tenant, made with the operators' commands (`kino admin ...`).
  const { orgId, envId, apiKey, apiUrl, operatorToken } = status.devJson;
  const tenant = await connectTenant({
    env,
    apiUrl,
    operatorToken,
    deliveryUrl: playback ? status.devJson.deliveryUrl : undefined,
    tenancy: { orgId, envId, apiKey },
  });
  const farm: Farm = {
    ...tenant,
    launcher,
    services,
    env,
    operatorToken,
    nodeToken: env.NODE_TOKEN!,
    registryAddress: env.KINO_CONTROL_PLANE!,
    api: launcher.process('api'),
    metricsUrls: status.devJson.metricsUrls,
    orchestrator: launcher.process('orchestrator'),
    startOrchestrator: (env) => launcher.restart('orchestrator', env),

    async startNode(name, { slots = 1, threads = 0, host, qualityFfmpeg, enroll } = {}) {
      const node = await launcher.startNode({
        ...(enroll ? { enroll } : {}),
        name: `node-${name}`,
        slots,
        threads,
        labels: { name },
        host,
        ...(qualityFfmpeg === undefined ? {} : { qualityFfmpeg }),
      });
      return { ...node, name };
    },

    async stop() {
      await tenant.stop();
      await stack.stop();
    },
  };
  return farm;
}

/**
 * A tenant's clients of a running farm, from the farm's environment (DATABASE_URL, TEMPORAL_ADDRESS,
 * S3_*, CLICKHOUSE_URL): its stop() closes them and leaves the farm running.
 */
export async function connectTenant({
  env,
  apiUrl,
  operatorToken,
  deliveryUrl,
  tenancy: { orgId, envId, apiKey },
}: {
  env: Record<string, string>;
  apiUrl: string;
  operatorToken: string;
  /** When the farm plays videos (a delivery node and the analytics store). */
  deliveryUrl?: string;
  tenancy: { orgId: string; envId: string; apiKey: string };
}): Promise<FarmTenant> {
  const db = await openDatabase(env.DATABASE_URL!);
  const storage = new Storage(parseConfig(storageConfigShape, env));
  const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection, namespace: 'default' });
  const kino = new Kino({ apiUrl, apiKey, operatorToken });

  return {
    db,
    storage,
    temporal,
    orgId,
    envId,
    apiUrl,
    kino,
    apiKey,
    deliveryUrl,
    clickhouse: deliveryUrl ? new ClickHouseHttp(env.CLICKHOUSE_URL!) : undefined,

    async submitVideo(
      body,
      {
        quality = 'standard',
        compressionRatio = 'ultrafast',
        maxFrameRate = -1,
        maxEdgeLength = -1,
        filename = 'clip.mp4',
        beforeProcess,
        ...options
      } = {},
    ) {
      const ticket = await kino.uploads.createUrl(orgId, envId, {
        filename,
        fileSize: body.length,
        contentType: 'video/mp4',
      });
      await kino.uploads.putFile(ticket, body, 'video/mp4');
      await beforeProcess?.();
      const { videoID } = await kino.videos.process(orgId, envId, {
        storagePath: ticket.bucketPath,
        videoQuality: quality,
        allowPublicAccess: true,
        videoName: filename,
        compressionRatio: compressionRatio as never,
        ...(maxFrameRate > 0 ? { maxFrameRate } : {}),
        ...(maxEdgeLength > 0 ? { maxEdgeLength: maxEdgeLength as never } : {}),
        ...(options as object),
      });
      return videoID;
    },

    async waitForStatus(videoId, status, timeoutMs = 120_000) {
      return waitFor(
        `video ${videoId} to be ${status}`,
        async () => {
          const details = (await kino.videos.get(orgId, videoId)) as Awaited<ReturnType<Kino['videos']['get']>> & {
            failureReason?: string;
          };
          if (!details.status.transcoding && !details.status[status]) {
            throw new Error(
              `video ended ${JSON.stringify(details.status)} (${details.failureReason ?? ''}), not ${status}`,
            );
          }
          return details.status[status] ? details : undefined;
        },
        { timeoutMs, intervalMs: 300 },
      );
    },

    async downloadVideo(videoId, dir) {
      const prefix = objectKeys.videoPrefix(videoId);
      const keys = await storage.list(prefix);
      for (const key of keys) {
        const path = join(dir, key.slice(prefix.length));
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, (await storage.get(key))!);
      }
      return keys;
    },

    async scheduledActivities(videoId) {
      const counts: Record<string, number> = {};
      for (const { type } of await activitiesOf(temporal, workflowIds.processVideo(videoId)))
        counts[type] = (counts[type] ?? 0) + 1;
      return counts;
    },

    async stop() {
      await connection.close();
      await db.destroy();
      storage.close();
    },
  };
}

/** Each activity a video's workflow scheduled, in order, with the highest attempt it started (0: none yet). */
async function activitiesOf(temporal: Client, workflowId: string): Promise<{ type: string; attempts: number }[]> {
  const history = await temporal.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<number, { type: string; attempts: number }>();
  for (const event of history.events ?? []) {
    const type = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (type) scheduled.set(Number(event.eventId), { type, attempts: 0 });
    const started = event.activityTaskStartedEventAttributes;
    const activity = started ? scheduled.get(Number(started.scheduledEventId)) : undefined;
    if (activity) activity.attempts = Math.max(activity.attempts, started?.attempt ?? 1);
  }
  return [...scheduled.values()];
}

/** How many attempts each activity type of a video's workflow (or another workflow of it) took, from its history. */
export async function attemptsByActivity(
  farm: Farm,
  videoId: string,
  workflowId = workflowIds.processVideo(videoId),
): Promise<Record<string, number>> {
  const attempts: Record<string, number> = {};
  for (const { type, attempts: n } of await activitiesOf(farm.temporal, workflowId)) {
    if (n > 0) attempts[type] = Math.max(attempts[type] ?? 0, n);
  }
  return attempts;
}

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  body: string;
  payload: {
    event: string;
    videoId: string | null;
    status: string | null;
    timestamp: string;
    data: Record<string, unknown>;
  };
  signatureValid: boolean;
  /** Answered 503 (see failNext). */
  refused: boolean;
}

/**
 * A webhook endpoint that checks Standard Webhooks signatures on its own (not with Kino's code):
 * HMAC-SHA256 of "{id}.{timestamp}.{body}" keyed with the base64 secret after `whsec_`.
 */
export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** The endpoint's secret, known once the webhook is registered (the API makes it). */
  secret: string;
  /** Answer this many of the next deliveries 503, to see them retried: of `failEvent` only, when set. */
  failNext: number;
  failEvent?: string;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(request.headers['webhook-id'] ?? '');
      const timestamp = String(request.headers['webhook-timestamp'] ?? '');
      const key = Buffer.from(receiver.secret.replace(/^whsec_/, ''), 'base64');
      const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
      const signatureValid = String(request.headers['webhook-signature'] ?? '')
        .split(' ')
        .some((part) => {
          const [version, value] = part.split(',');
          const presented = Buffer.from(value ?? '', 'base64');
          return version === 'v1' && presented.length === expected.length && timingSafeEqual(presented, expected);
        });
      const payload = JSON.parse(body) as ReceivedWebhook['payload'];
      const refused =
        signatureValid &&
        receiver.failNext > 0 &&
        (receiver.failEvent === undefined || receiver.failEvent === payload.event);
      if (refused) receiver.failNext -= 1;
      received.push({ id, timestamp, body, payload, signatureValid, refused });
      response.writeHead(!signatureValid ? 401 : refused ? 503 : 204).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}/hooks/kino`,
    received,
    secret: '',
    failNext: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return receiver;
}

/** Registers a webhook for the farm's environment through the SDK; returns its secret (shown once). */
export async function registerWebhook(farm: FarmTenant, url: string): Promise<string> {
  const created = await farm.kino.webhooks.create(farm.orgId, farm.envId, { url });
  return created.secret;
}
