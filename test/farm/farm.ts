// A whole transcoding farm for end-to-end tests, every part a real separate process: PostgreSQL,
// the Temporal dev server, SeaweedFS (S3 that checks signatures), `kino orchestrator` and any
// number of `kino node start`. Videos are made the way the API makes them (an upload through a
// presigned PUT, a `videos` row in `transcoding`, the `processVideo` workflow started on
// `kino-videos`), then observed through the database, storage and Temporal.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Storage, freePort, newId, objectKeys, repoRoot, startProcess, waitFor, type ManagedProcess } from '@kino/infra';
import { migrateToLatest, openDatabase, type Db } from '@kino/control-plane/db';
import { serviceEnv, startTestServices, type TestServices } from '@kino/test/support/services';

export const kinoBin = join(repoRoot, 'cli', 'bin', 'kino.js');

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
  orgId: string;
  envId: string;
  startOrchestrator(): Promise<ManagedProcess>;
  startNode(name: string, options?: { slots?: number; threads?: number }): Promise<FarmNodeProcess>;
  /** Uploads `body` through a presigned PUT, then creates the video and starts its workflow, as the API's process call does. */
  submitVideo(body: Uint8Array, options?: VideoOptions & { contentType?: string; filename?: string }): Promise<string>;
  waitForStatus(videoId: string, status: 'ready' | 'failed', timeoutMs?: number): Promise<{ failure_reason: string | null }>;
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

  const orgId = newId('org');
  const envId = newId('env');
  await db.insertInto('organizations').values({ id: orgId, name: 'Farm test' }).execute();
  await db.insertInto('environments').values({ id: envId, org_id: orgId, name: 'test' }).execute();

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

    async submitVideo(body, { quality = 'standard', compressionRatio = 'ultrafast', maxFrameRate = -1, maxEdgeLength = -1, contentType = 'video/mp4', filename = 'clip.mp4' } = {}) {
      const uploadId = newId('upl');
      const storagePath = objectKeys.upload(orgId, envId, uploadId, filename);
      const url = await storage.presignPut(storagePath, 3600, contentType);
      const response = await fetch(url, { method: 'PUT', body: Buffer.from(body), headers: { 'content-type': contentType } });
      if (!response.ok) throw new Error(`upload refused: ${response.status} ${await response.text()}`);
      const videoId = newId('vid');
      await db
        .insertInto('videos')
        .values({
          id: videoId,
          org_id: orgId,
          env_id: envId,
          name: filename,
          description: null,
          status: 'transcoding',
          failure_reason: null,
          storage_path: storagePath,
          video_quality: quality,
          allow_public_access: true,
          parameters: JSON.stringify({
            maxEdgeLength,
            maxFrameRate,
            pixelFormat: 'yuv420p',
            rateControlMode: 'variableBitrate',
            twoPassVBREncoding: false,
            compressionRatio,
            audioCodec: 'aac',
          }),
          duration_seconds: null,
          source_width: null,
          source_height: null,
          source_frame_rate: null,
          thumbnail_key: null,
          ready_at: null,
          deleted_at: null,
          delete_reason: null,
        })
        .execute();
      await temporal.workflow.start('processVideo', { taskQueue: 'kino-videos', workflowId: `video:${videoId}`, args: [{ videoId }] });
      return videoId;
    },

    async waitForStatus(videoId, status, timeoutMs = 120_000) {
      return waitFor(
        `video ${videoId} to be ${status}`,
        async () => {
          const row = await db.selectFrom('videos').select(['status', 'failure_reason']).where('id', '=', videoId).executeTakeFirstOrThrow();
          if (row.status !== 'transcoding' && row.status !== status) {
            throw new Error(`video became ${row.status} (${row.failure_reason ?? ''}), not ${status}`);
          }
          return row.status === status ? row : undefined;
        },
        { timeoutMs, intervalMs: 250 },
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
      await farm.orchestrator.stop(10_000);
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
}

/**
 * A webhook endpoint that checks Standard Webhooks signatures on its own (not with Kino's code):
 * HMAC-SHA256 of "{id}.{timestamp}.{body}" keyed with the base64 secret after `whsec_`.
 */
export async function startWebhookReceiver(secret: string): Promise<{ url: string; received: ReceivedWebhook[]; close(): Promise<void> }> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const received: ReceivedWebhook[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(request.headers['webhook-id'] ?? '');
      const timestamp = String(request.headers['webhook-timestamp'] ?? '');
      const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
      const signatureValid = String(request.headers['webhook-signature'] ?? '')
        .split(' ')
        .some((part) => {
          const [version, value] = part.split(',');
          const presented = Buffer.from(value ?? '', 'base64');
          return version === 'v1' && presented.length === expected.length && timingSafeEqual(presented, expected);
        });
      received.push({ id, timestamp, body, payload: JSON.parse(body) as ReceivedWebhook['payload'], signatureValid });
      response.writeHead(signatureValid ? 204 : 401).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/hooks/kino`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Registers a webhook for the farm's environment as the API would (secret `whsec_` + base64). */
export async function registerWebhook(farm: Farm, url: string, secret: string): Promise<string> {
  const id = newId('whk');
  await farm.db
    .insertInto('webhooks')
    .values({
      id,
      org_id: farm.orgId,
      env_id: farm.envId,
      url,
      events: JSON.stringify(['video.processing.completed', 'video.processing.failed']),
      secret,
      deleted_at: null,
    })
    .execute();
  return id;
}

export async function readText(path: string): Promise<string> {
  return readFile(path, 'utf8');
}
