// The processes a delivery test talks to, all real, started by the dev stack's launcher
// (support/stack.ts) on a free port base: PostgreSQL and SeaweedFS, an analytics store (chDB behind
// `kino analytics-store`, or Debian's ClickHouse server), the API (`kino api`, for the JWKS and signed
// URLs) and a delivery node (`kino delivery`), each a child process with its log in the stack's
// directory. No Temporal and no orchestrator: nothing here transcodes.
import { openDatabase, type Db } from '@kino/database';
import { join } from 'node:path';
import { ClickHouseHttp } from '@kino/analytics';
import { Storage } from '@kino/infra';
import { freePort, kinoBin, MALLOC_TUNABLES, startProcess, waitFor, type ManagedProcess } from '@kino/dev';
import type { TestServices } from '@kino/test/support/services';
import { startTestStack } from '@kino/test/support/stack';

export interface DeliveryNode {
  url: string;
  process: ManagedProcess;
  /** Its log (pino's JSON lines); set for the nodes startAnotherDelivery starts. */
  logFile?: string;
}

export interface DeliveryStack {
  services: TestServices;
  db: Db;
  storage: Storage;
  clickhouse: ClickHouseHttp;
  apiUrl: string;
  apiKey: string;
  orgId: string;
  envId: string;
  delivery: DeliveryNode;
  /** The `kino api` process of the stack. */
  apiProcess: ManagedProcess;
  spoolDir: string;
  /** The API's KINO_KEY_ENCRYPTION_KEY: what opens the playback signing keys in `db`. */
  keyEncryptionKey: string;
  /** Starts the delivery node again on the same port, cache and spool (after a stop or a kill). */
  restartDelivery(): Promise<DeliveryNode>;
  /**
   * Another `kino delivery` process on the same database, storage and keys (its own port, cache and
   * spool); stopped with the stack. `env` overrides its settings (e.g. S3_ENDPOINT through a proxy).
   */
  startAnotherDelivery(name: string, env?: Record<string, string>): Promise<DeliveryNode>;
  stop(): Promise<void>;
}

export async function startDeliveryStack({
  analytics,
  shipIntervalMs = 200,
  deliveryEnv = {},
}: {
  analytics: 'chdb' | 'clickhouse-server';
  shipIntervalMs?: number;
  /** More settings of the delivery node (e.g. its cache sizes, for benchmarks). */
  deliveryEnv?: Record<string, string>;
}): Promise<DeliveryStack> {
  const test = await startTestStack({
    nodes: 0,
    without: ['temporal', 'orchestrator'],
    analytics,
    env: {
      delivery: {
        DELIVERY_LOG_SHIP_INTERVAL_MS: String(shipIntervalMs),
        DELIVERY_NODE_ID: 'test-node',
        ...deliveryEnv,
      },
    },
  });
  const { launcher, status, env } = test;
  const db = await openDatabase(env.DATABASE_URL!);
  const services: TestServices = {
    dir: test.dir,
    databaseUrl: env.DATABASE_URL!,
    temporalAddress: '',
    storage: test.storage,
    stop: test.stop,
  };
  const extraNodes: ManagedProcess[] = [];
  const stack: DeliveryStack = {
    services,
    db,
    storage: new Storage(test.storage),
    clickhouse: new ClickHouseHttp(env.CLICKHOUSE_URL!),
    apiUrl: status.devJson.apiUrl,
    // The dev stack's full-access key of its organization (made with `kino admin`).
    apiKey: status.devJson.apiKey,
    orgId: status.devJson.orgId,
    envId: status.devJson.envId,
    delivery: { url: status.devJson.deliveryUrl, process: launcher.process('delivery') },
    apiProcess: launcher.process('api'),
    spoolDir: launcher.layout.deliverySpoolDir,
    keyEncryptionKey: env.KINO_KEY_ENCRYPTION_KEY!,
    async restartDelivery() {
      stack.delivery = { url: status.devJson.deliveryUrl, process: await launcher.restart('delivery') };
      return stack.delivery;
    },
    async startAnotherDelivery(name, overrides = {}) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const dir = join(test.dir, name);
      const logFile = join(dir, 'delivery.log');
      const child = startProcess(name, process.execPath, [kinoBin, 'delivery'], {
        env: {
          ...process.env,
          ...env,
          DELIVERY_HOST: '127.0.0.1',
          DELIVERY_PORT: String(port),
          DELIVERY_CACHE_DIR: join(dir, 'cache'),
          DELIVERY_SPOOL_DIR: join(dir, 'spool'),
          DELIVERY_NODE_ID: name,
          GLIBC_TUNABLES: MALLOC_TUNABLES,
          ...overrides,
        },
        logFile,
      });
      extraNodes.push(child);
      await waitFor(`${name} on ${url}/health`, async () => {
        const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
        return response?.ok || undefined;
      });
      return { url, process: child, logFile };
    },
    async stop() {
      await Promise.all(extraNodes.map((node) => node.stop()));
      stack.storage.close();
      await db.destroy();
      await test.stop();
    },
  };
  return stack;
}

/** GET /{orgID}/videos/{publicID}/signed-url through the API. */
export async function requestSignedUrl(
  stack: Pick<DeliveryStack, 'apiUrl' | 'apiKey' | 'orgId'>,
  videoId: string,
  query: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const search = new URLSearchParams(query).toString();
  const response = await fetch(
    `${stack.apiUrl}/${stack.orgId}/videos/${videoId}/signed-url${search ? `?${search}` : ''}`,
    {
      headers: { 'X-Api-Key': stack.apiKey },
    },
  );
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** The signed URL of a video (asserting the API said 200). */
export async function signedUrlOf(
  stack: DeliveryStack,
  videoId: string,
  query: Record<string, string> = {},
): Promise<string> {
  const { status, json } = await requestSignedUrl(stack, videoId, query);
  if (status !== 200) throw new Error(`signed-url answered ${status}: ${JSON.stringify(json)}`);
  return (json.body as { signed_url: string }).signed_url;
}

/** Variant URIs of a master playlist, resolved against its URL. */
export function variantUrls(masterUrl: string, master: string): string[] {
  return master
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => new URL(line.trim(), masterUrl).href);
}
