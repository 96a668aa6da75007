// Prometheus metrics (docs/metrics.md lists every series). Each process has one registry: its own
// metrics, made by its family's metrics module (api/src/metrics.ts, orchestrator/
// metrics.ts, encode-node/src/metrics.ts, delivery/src/metrics.ts), plus Node's process defaults
// (CPU, memory, event loop lag, GC). This module is the one way to serve a registry as text at
// `GET /metrics`: the API's route, delivery's HTTP server and the metrics server of the gRPC-only
// processes (orchestrator, encode nodes) all answer through `answerMetrics`.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { z } from './config.ts';
import type { Logger } from './logger.ts';

export { Counter, Gauge, Histogram, Registry };

/** The metrics settings every process shares. */
export const metricsConfigShape = {
  /**
   * When set, `GET /metrics` answers only requests with `Authorization: Bearer <METRICS_TOKEN>`
   * (401 otherwise). Set it wherever /metrics is reachable from the internet (delivery and the API
   * usually are); unset, /metrics is open, for a private network or loopback.
   */
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
};

/** A registry with Node's process defaults; the caller adds its family's metrics. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Request latencies in seconds: from a cached segment (sub-millisecond) to a slow storage read. */
export const requestSecondsBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The HTTP request metrics of a process with an HTTP API (the API, delivery). `route` is the route's
 * pattern (`/v1/api/{orgID}/...` or a delivery path kind), never the raw URL: the number of series
 * stays bounded whatever clients send.
 */
export function httpRequestMetrics(registry: Registry) {
  return {
    requests: new Counter({
      name: 'kino_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status code.',
      labelNames: ['route', 'method', 'status'] as const,
      registers: [registry],
    }),
    seconds: new Histogram({
      name: 'kino_http_request_duration_seconds',
      help: "Time from a request's arrival until its answer is written (a streamed file: until it starts streaming), by route pattern and method; delivery does not time media segments.",
      labelNames: ['route', 'method'] as const,
      buckets: requestSecondsBuckets,
      registers: [registry],
    }),
  };
}
export type HttpRequestMetrics = ReturnType<typeof httpRequestMetrics>;

/**
 * What a process with a database pool (the API, the orchestrator, delivery) does when one of its
 * connections ends under it, a PostgreSQL restart say: a warning and a count. The pool opens a new
 * connection for the next query; the process carries on.
 */
export function databaseConnectionErrors(registry: Registry, logger: Logger): (error: Error) => void {
  const lost = new Counter({
    name: 'kino_database_connection_errors_total',
    help: 'Database connections that ended under the pool (a PostgreSQL restart or failover, a network cut).',
    registers: [registry],
  });
  return (error) => {
    lost.inc();
    logger.warn({ err: error }, 'a database connection ended; the next query opens another');
  };
}

export interface MetricsAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** The answer to `GET /metrics`: the registry as text, or 401 in the error envelope when a token is required and missing. */
export async function answerMetrics(
  registry: Registry,
  token: string | undefined,
  authorization: string | undefined,
): Promise<MetricsAnswer> {
  if (token !== undefined) {
    const presented = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length).trim() : '';
    if (!timingSafeEqual(digest(presented), digest(token))) {
      const body = JSON.stringify({
        title: STATUS_CODES[401],
        status: 401,
        detail: 'Metrics need the metrics token: send Authorization: Bearer <METRICS_TOKEN>.',
        code: 'unauthorized',
      });
      return {
        status: 401,
        headers: { 'Content-Type': 'application/json; charset=utf-8', 'WWW-Authenticate': 'Bearer' },
        body,
      };
    }
  }
  return { status: 200, headers: { 'Content-Type': registry.contentType }, body: await registry.metrics() };
}

/** Writes `answerMetrics`'s answer on a node:http response. */
export async function serveMetrics(
  registry: Registry,
  token: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const answer = await answerMetrics(registry, token, req.headers.authorization);
  res.writeHead(answer.status, {
    ...answer.headers,
    'Cache-Control': 'no-store',
    'Content-Length': String(Buffer.byteLength(answer.body)),
  });
  res.end(req.method === 'HEAD' ? undefined : answer.body);
}

export interface MetricsServer {
  /** HOST:PORT it listens on (the port chosen when 0 was asked). */
  readonly address: string;
  stop(): Promise<void>;
}

/**
 * The metrics server of a gRPC-only process: `GET /metrics` on its own HTTP port (anything else
 * is 404). The process prints the address at start (the dev stack writes it to dev.json).
 */
export async function startMetricsServer({
  registry,
  host,
  port,
  token,
}: {
  registry: Registry;
  host: string;
  port: number;
  token?: string;
}): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) {
      serveMetrics(registry, token, req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
      return;
    }
    const body = JSON.stringify({
      title: STATUS_CODES[404],
      status: 404,
      detail: 'Only GET /metrics is served here.',
      code: 'not_found',
    });
    res.writeHead(404, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  const address = `${host.includes(':') ? `[${host}]` : host}:${bound.port}`;
  return {
    address,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
