// The processes a delivery test talks to, all real and on free loopback ports: PostgreSQL and
// SeaweedFS (startTestServices), an analytics store (chDB behind `kino analytics`, or Debian's
// ClickHouse server), the API (`kino api`, for the JWKS and signed URLs) and a delivery node
// (`kino delivery`), each a child process with its log in the test's directory.
import { join } from 'node:path';
import { createApiKey } from '@kino/control-plane';
import { migrateToLatest, openDatabase, type Db } from '@kino/control-plane/db';
import { ClickHouseHttp, repoRoot, Storage } from '@kino/infra';
import { freePort, startClickHouse, startProcess, waitFor, type ClickHouseServer, type ManagedProcess } from '@kino/infra/dev';
import { serviceEnv, startTestServices, type TestServices } from '@kino/test/support/services';
import { createTenancy } from '@kino/test/support/hls-fixture';

const kino = join(repoRoot, 'cli', 'bin', 'kino.js');

export interface DeliveryNode {
  url: string;
  process: ManagedProcess;
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
  spoolDir: string;
  /** Starts the delivery node again on the same port, cache and spool (after a stop or a kill). */
  restartDelivery(): Promise<DeliveryNode>;
  stop(): Promise<void>;
}

export async function startDeliveryStack({
  analytics,
  shipIntervalMs = 200,
}: {
  analytics: 'chdb' | 'clickhouse-server';
  shipIntervalMs?: number;
}): Promise<DeliveryStack> {
  const services = await startTestServices({ postgres: true, s3: true });
  const started: { stop(): Promise<void> }[] = [];
  try {
    const env = { ...process.env, ...serviceEnv(services), LOG_LEVEL: 'warn' };

    let clickhouseUrl: string;
    if (analytics === 'chdb') {
      const port = await freePort();
      const proc = startProcess('analytics', process.execPath, [kino, 'analytics'], {
        env: { ...env, ANALYTICS_PORT: String(port), ANALYTICS_DATA_DIR: join(services.dir, 'chdb') },
        logFile: join(services.dir, 'analytics.log'),
      });
      started.push(proc);
      clickhouseUrl = `http://127.0.0.1:${port}`;
      await waitFor('kino analytics to answer /ping', async () => {
        if (proc.child.exitCode !== null) throw new Error(`kino analytics exited; see ${services.dir}/analytics.log`);
        return (await fetch(`${clickhouseUrl}/ping`)).ok;
      }, { timeoutMs: 60_000 });
    } else {
      const server: ClickHouseServer = await startClickHouse({ dataDir: join(services.dir, 'clickhouse'), httpPort: await freePort() });
      started.push(server);
      clickhouseUrl = server.url;
    }

    const apiPort = await freePort();
    const deliveryPort = await freePort();
    const deliveryBase = `http://127.0.0.1:${deliveryPort}`;
    const api = startProcess('api', process.execPath, [kino, 'api'], {
      env: {
        ...env,
        API_HOST: '127.0.0.1',
        API_PORT: String(apiPort),
        // Nothing here starts workflows; the client connects lazily and never needs it.
        TEMPORAL_ADDRESS: '127.0.0.1:1',
        CLICKHOUSE_URL: clickhouseUrl,
        DELIVERY_URL: deliveryBase,
      },
      logFile: join(services.dir, 'api.log'),
    });
    started.push(api);
    const apiUrl = `http://127.0.0.1:${apiPort}/v1/api`;
    await waitFor('the API to serve its JWKS', async () => {
      if (api.child.exitCode !== null) throw new Error(`kino api exited; see ${services.dir}/api.log`);
      return (await fetch(`${apiUrl}/.well-known/jwks.json`)).ok;
    }, { timeoutMs: 60_000 });

    const db = await openDatabase(services.databaseUrl);
    await migrateToLatest(db);
    const { orgId, envId } = await createTenancy(db);
    const { apiKey } = await createApiKey(db, { orgId, type: 'full', live: false });

    const spoolDir = join(services.dir, 'delivery-spool');
    const deliveryEnv = {
      ...env,
      DELIVERY_HOST: '127.0.0.1',
      DELIVERY_PORT: String(deliveryPort),
      CONTROL_PLANE_URL: apiUrl,
      CLICKHOUSE_URL: clickhouseUrl,
      DELIVERY_CACHE_DIR: join(services.dir, 'delivery-cache'),
      DELIVERY_SPOOL_DIR: spoolDir,
      DELIVERY_LOG_SHIP_INTERVAL_MS: String(shipIntervalMs),
      DELIVERY_NODE_ID: 'test-node',
    };
    const startDelivery = async (): Promise<DeliveryNode> => {
      const proc = startProcess('delivery', process.execPath, [kino, 'delivery'], {
        env: deliveryEnv,
        logFile: join(services.dir, 'delivery.log'),
      });
      await waitFor('the delivery node to answer /health', async () => {
        if (proc.child.exitCode !== null) throw new Error(`kino delivery exited; see ${services.dir}/delivery.log`);
        return (await fetch(`${deliveryBase}/health`)).ok;
      }, { timeoutMs: 60_000 });
      return { url: deliveryBase, process: proc };
    };

    const stack: DeliveryStack = {
      services,
      db,
      storage: new Storage(services.storage),
      clickhouse: new ClickHouseHttp(clickhouseUrl),
      apiUrl,
      apiKey,
      orgId,
      envId,
      delivery: await startDelivery(),
      spoolDir,
      async restartDelivery() {
        await stack.delivery.process.stop();
        stack.delivery = await startDelivery();
        return stack.delivery;
      },
      async stop() {
        await stack.delivery.process.stop();
        await Promise.all(started.map((s) => s.stop()));
        stack.storage.s3.destroy();
        await db.destroy();
        await services.stop();
      },
    };
    return stack;
  } catch (error) {
    await Promise.all(started.map((s) => s.stop()));
    await services.stop();
    throw error;
  }
}

/** GET /{orgID}/videos/{publicID}/signed-url through the API. */
export async function requestSignedUrl(
  stack: Pick<DeliveryStack, 'apiUrl' | 'apiKey' | 'orgId'>,
  videoId: string,
  query: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const search = new URLSearchParams(query).toString();
  const response = await fetch(`${stack.apiUrl}/${stack.orgId}/videos/${videoId}/signed-url${search ? `?${search}` : ''}`, {
    headers: { 'X-Api-Key': stack.apiKey },
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** The signed URL of a video (asserting the API said 200). */
export async function signedUrlOf(stack: DeliveryStack, videoId: string, query: Record<string, string> = {}): Promise<string> {
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
