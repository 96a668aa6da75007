// A whole transcoding farm for end-to-end tests, every part a real separate process: PostgreSQL,
// the Temporal dev server, SeaweedFS (S3 that checks signatures), `kino api`, `kino orchestrator`
// and any number of `kino node start`. The tenant and its key come from the operators' commands
// (`kino admin ...`); videos go in the way users send them, through the SDK: an upload URL, a PUT
// to storage, the process call. Tests observe through the SDK, and through the database, storage
// and Temporal for what the API does not show (slots, node states, workflow history).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { Kino } from '@kino/sdk';
import { Storage, newId, objectKeys, repoRoot } from '@kino/infra';
import { freePort, startProcess, waitFor, type ManagedProcess } from '@kino/infra/dev';
import { migrateToLatest, openDatabase, type Db } from '@kino/control-plane/db';
import { serviceEnv, startTestServices, type TestServices } from '@kino/test/support/services';

export const kinoBin = join(repoRoot, 'cli', 'bin', 'kino.js');
const execFileAsync = promisify(execFile);

export interface FarmNodeProcess {
  name: string;
  nodeId: string;
  address: string;
  process: ManagedProcess;
}

export interface VideoOptions {
  quality?: 'standard' | 'high' | 'ultra';
  compressionRatio?: string;
  maxFrameRate?: number;
  maxEdgeLength?: number;
}

export interface Farm {
  services: TestServices;
  db: Db;
  storage: Storage;
  temporal: Client;
  nodeToken: string;
  registryAddress: string;
  orchestrator: ManagedProcess;
  api: ManagedProcess;
  /** The SDK, with an environment key of the farm's environment. */
  kino: Kino;
  orgId: string;
  envId: string;
  startOrchestrator(): Promise<ManagedProcess>;
  startNode(name: string, options?: { slots?: number; threads?: number }): Promise<FarmNodeProcess>;
  /** Through the SDK: an upload URL, the PUT of `body` to storage, the process call. Returns the video id. */
  submitVideo(body: Uint8Array, options?: VideoOptions & { filename?: string }): Promise<string>;
  /** Polls the video's details (SDK) until it is `status`; fails early if it ends otherwise. */
  waitForStatus(videoId: string, status: 'ready' | 'failed', timeoutMs?: number): Promise<{ failureReason?: string }>;
  /** Downloads every object under `videos/{id}/` into `dir`, keeping the layout below `videos/{id}/`. */
  downloadVideo(videoId: string, dir: string): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startFarm({ heartbeatTimeoutMs = 3_000 }: { heartbeatTimeoutMs?: number } = {}): Promise<Farm> {
  const services = await startTestServices();
  const registryPort = await freePort();
  const registryAddress = `127.0.0.1:${registryPort}`;
  const nodeToken = `farm-${newId('key')}`;
  const env = {
    ...process.env,
    ...serviceEnv(services),
    TEMPORAL_NAMESPACE: 'default',
    REGISTRY_HOST: '127.0.0.1',
    REGISTRY_PORT: String(registryPort),
    NODE_TOKEN: nodeToken,
    NODE_HEARTBEAT_TIMEOUT_MS: String(heartbeatTimeoutMs),
    LOG_LEVEL: 'info',
    AWS_SDK_JS_SUPPRESS_NODE_VERSION_WARNING: '1',
  };
  const nodes: FarmNodeProcess[] = [];
  let orchestrators = 0;

  const db = await openDatabase(services.databaseUrl);
  await migrateToLatest(db);
  const storage = new Storage(services.storage);
  const connection = await Connection.connect({ address: services.temporalAddress });
  const temporal = new Client({ connection, namespace: 'default' });

  // The tenant, as an operator makes it.
  const admin = async (...args: string[]) => {
    const { stdout } = await execFileAsync(process.execPath, [kinoBin, 'admin', ...args, '--json'], { env });
    return JSON.parse(stdout) as Record<string, string>;
  };
  const orgId = (await admin('org', 'create', '--name', 'Farm test')).id!;
  const envId = (await admin('env', 'create', '--org', orgId, '--name', 'test')).id!;
  const apiKey = (await admin('key', 'create', '--org', orgId, '--env', envId, '--type', 'environment')).apiKey!;

  const apiPort = await freePort();
  const apiLog = join(services.dir, 'api.log');
  const api = startProcess('api', process.execPath, [kinoBin, 'api'], {
    env: { ...env, API_HOST: '127.0.0.1', API_PORT: String(apiPort), DELIVERY_URL: 'http://127.0.0.1:9/' },
    logFile: apiLog,
  });
  const apiUrl = `http://127.0.0.1:${apiPort}/v1/api`;
  await waitFor(
    'the API to answer /health',
    async () => {
      if (api.child.exitCode !== null) throw new Error(`api exited: ${tail(apiLog)}`);
      return (await fetch(`${apiUrl}/health`)).status > 0;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  const kino = new Kino({ apiUrl, apiKey });

  async function startOrchestrator(): Promise<ManagedProcess> {
    orchestrators += 1;
    const logFile = join(services.dir, `orchestrator-${orchestrators}.log`);
    const child = startProcess('orchestrator', process.execPath, [kinoBin, 'orchestrator'], { env, logFile });
    // Ready when its worker polls the task queue (the registry listens before that).
    await waitFor(
      'the orchestrator to poll kino-videos',
      async () => {
        if (child.child.exitCode !== null) throw new Error(`orchestrator exited: ${tail(logFile)}`);
        return readFileSync(logFile, 'utf8').includes('"msg":"orchestrator running"');
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    return child;
  }

  const farm: Farm = {
    services,
    db,
    storage,
    temporal,
    nodeToken,
    registryAddress,
    orgId,
    envId,
    api,
    kino,
    orchestrator: await startOrchestrator(),
    startOrchestrator,

    async startNode(name, { slots = 1, threads = 0 } = {}) {
      const port = await freePort();
      const logFile = join(services.dir, `node-${name}.log`);
      const workDir = join(services.dir, `work-${name}`);
      await mkdir(workDir, { recursive: true });
      const child = startProcess(
        `node-${name}`,
        process.execPath,
        [kinoBin, 'node', 'start', '--control-plane', registryAddress, '--token', nodeToken, '--slots', String(slots), '--port', String(port), '--threads', String(threads), '--label', `name=${name}`],
        { env: { ...env, NODE_WORK_DIR: workDir }, logFile },
      );
      // The node prints one JSON line {nodeId, address} on stdout when it is registered.
      const ready = await waitFor(
        `node ${name} to register`,
        () => {
          if (child.child.exitCode !== null) throw new Error(`node ${name} exited: ${tail(logFile)}`);
          for (const line of readFileSync(logFile, 'utf8').split('\n')) {
            if (!line.startsWith('{"nodeId"')) continue;
            const parsed = JSON.parse(line) as { nodeId: string; address: string };
            return parsed;
          }
          return undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      const node = { name, nodeId: ready.nodeId, address: ready.address, process: child };
      nodes.push(node);
      return node;
    },

    async submitVideo(body, { quality = 'standard', compressionRatio = 'ultrafast', maxFrameRate = -1, maxEdgeLength = -1, filename = 'clip.mp4' } = {}) {
      // The ticket is asked for at least 1 byte (the API's floor); an empty upload is a PUT of nothing to it.
      const ticket = await kino.uploads.createUrl(orgId, envId, { filename, fileSize: Math.max(1, body.length), contentType: 'video/mp4' });
      await kino.uploads.putFile(ticket, body, 'video/mp4');
      const { videoID } = await kino.videos.process(orgId, envId, {
        storagePath: ticket.bucketPath,
        videoQuality: quality,
        allowPublicAccess: true,
        videoName: filename,
        compressionRatio: compressionRatio as never,
        ...(maxFrameRate > 0 ? { maxFrameRate } : {}),
        ...(maxEdgeLength > 0 ? { maxEdgeLength: maxEdgeLength as never } : {}),
      });
      return videoID;
    },

    async waitForStatus(videoId, status, timeoutMs = 120_000) {
      return waitFor(
        `video ${videoId} to be ${status}`,
        async () => {
          const details = (await kino.videos.get(orgId, videoId)) as Awaited<ReturnType<Kino['videos']['get']>> & { failureReason?: string };
          if (!details.status.transcoding && !details.status[status]) {
            throw new Error(`video ended ${JSON.stringify(details.status)} (${details.failureReason ?? ''}), not ${status}`);
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

    async stop() {
      await Promise.all(nodes.map((n) => n.process.stop(5_000)));
      await Promise.all([farm.orchestrator.stop(10_000), api.stop(10_000)]);
      // KINO_FARM_LOGS=<dir> keeps every process's log for a look after the run.
      if (process.env.KINO_FARM_LOGS) await cp(services.dir, process.env.KINO_FARM_LOGS, { recursive: true, filter: (path) => !/\/(pg|s3|work-[^/]+)(\/|$)/.test(path) });
      await connection.close();
      await db.destroy();
      await services.stop();
    },
  };
  return farm;
}

function tail(logFile: string): string {
  try {
    return readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  body: string;
  payload: { event: string; videoId: string; status: string; timestamp: string; data: Record<string, unknown> };
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
  /** Answer this many of the next deliveries 503, to see them retried. */
  failNext: number;
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
      const refused = signatureValid && receiver.failNext > 0;
      if (refused) receiver.failNext -= 1;
      received.push({ id, timestamp, body, payload: JSON.parse(body) as ReceivedWebhook['payload'], signatureValid, refused });
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
export async function registerWebhook(farm: Farm, url: string): Promise<string> {
  const created = await farm.kino.webhooks.create(farm.orgId, farm.envId, { url });
  return created.secret;
}
