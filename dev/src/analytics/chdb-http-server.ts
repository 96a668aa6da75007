// The embedded analytics store: chDB (the ClickHouse engine, in-process) behind the small part of
// ClickHouse's HTTP interface Kino uses, so every process talks to analytics through CLICKHOUSE_URL
// whether it is this or a ClickHouse server. chDB's data directory can be opened by one process
// only; this server is that process (`kino analytics-store`), and delivery nodes and the API are its
// clients.
//
// Supported: GET/HEAD /ping; GET /?query=SQL; POST / with the SQL as the body; POST /?query=SQL with
// the body as the query's data (INSERT ... FORMAT TabSeparated or JSONEachRow). That is all the official client
// (`@clickhouse/client`, @kino/analytics' clickhouse.ts) sends for Kino's statements. Other URL parameters
// (`query_id`, settings such as `output_format_json_quote_64bit_integers`) and the client's
// `Authorization` header are ignored: chDB's defaults already write 64-bit integers unquoted, and
// this process has no users (it is the dev stack's store). GET /metrics serves its metrics (queries
// by result and their seconds, plus the process defaults) like every Kino process. Errors answer 500 with ClickHouse's
// error text and code, like a server does, so the client raises them as ClickHouse errors.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Histogram, createMetricsRegistry, serveMetrics, type Logger } from '@kino/infra';

const maxBodyBytes = 64 * 1024 * 1024;

export interface ChdbHttpServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startChdbHttpServer({
  dataDir,
  host,
  port,
  logger,
}: {
  dataDir: string;
  host: string;
  port: number;
  logger?: Logger;
}): Promise<ChdbHttpServer> {
  const registry = createMetricsRegistry();
  const queries = new Counter({
    name: 'kino_analytics_store_queries_total',
    help: 'Statements the embedded analytics store ran, by result (ok, error).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const querySeconds = new Histogram({
    name: 'kino_analytics_store_query_seconds',
    help: 'Time a statement took in the embedded analytics store, its wait for the engine included.',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [registry],
  });
  // Loaded here, not at the top: only this process needs the native engine.
  const { Session } = await import('chdb');
  const session = new Session(dataDir);
  // One statement at a time: the engine is shared and statements here are small.
  let queue: Promise<unknown> = Promise.resolve();
  const run = (sql: string): Promise<string> => {
    const next = queue.then(async () => (await session.queryAsync(sql, { format: 'TabSeparated' })).text());
    queue = next.catch(() => undefined);
    return next;
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://analytics');
      if (url.pathname === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) {
        // The dev stack's store runs on loopback: no token.
        await serveMetrics(registry, undefined, req, res);
        return;
      }
      if (
        url.pathname === '/ping' ||
        (url.pathname === '/' && !url.searchParams.has('query') && req.method !== 'POST')
      ) {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' });
        res.end(req.method === 'HEAD' ? undefined : 'Ok.\n');
        return;
      }
      if (url.pathname !== '/' || (req.method !== 'GET' && req.method !== 'POST')) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=UTF-8' });
        res.end('There is no handle for this path\n');
        return;
      }
      const body = req.method === 'POST' ? await readBody(req) : '';
      const inUrl = url.searchParams.get('query');
      const sql = inUrl ? (body ? `${inUrl}\n${body}` : inUrl) : body;
      const timer = querySeconds.startTimer();
      try {
        const output = await run(sql);
        queries.inc({ result: 'ok' });
        const json = /FORMAT\s+JSON\s*;?\s*$/i.test(sql.trim());
        res.writeHead(200, { 'Content-Type': json ? 'application/json; charset=UTF-8' : 'text/plain; charset=UTF-8' });
        res.end(output);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        queries.inc({ result: 'error' });
        const code = /Code: (\d+)/.exec(message)?.[1] ?? '1';
        logger?.warn({ err: message.slice(0, 300) }, 'analytics query failed');
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Exception-Code': code });
        res.end(`${message}\n`);
      } finally {
        timer();
      }
    })().catch((error: unknown) => {
      logger?.error({ err: error }, 'analytics request failed');
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    server,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue;
      session.close();
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) throw new Error('request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
