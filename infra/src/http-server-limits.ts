// The limits every Kino HTTP server (the API, delivery nodes) runs with, chosen here, in one place
// (docs/security.md#http-limits). Node's defaults suit a trusted network, not the internet: a client
// that sends its headers a byte at a time (slow loris) holds a connection for a minute, and Node
// checks for expired requests only every 30 s. Each value below says what it bounds.
import type { Server, ServerOptions } from 'node:http';

export const httpServerLimits = {
  /** Request line plus headers. Above it: 431 headers_too_large (infra/src/http-client-error.ts). */
  maxHeaderSizeBytes: 16 * 1024,
  /** Time to receive the request line and every header. Above it: 408 and the connection closes. */
  headersTimeoutMs: 10_000,
  /** Time to receive a whole request, body included. API bodies are small JSON (uploads go to
   *  storage directly); delivery takes no bodies. */
  requestTimeoutMs: 30_000,
  /** How often Node looks for requests past those timeouts (its default, 30 s, would triple them). */
  connectionsCheckingIntervalMs: 1_000,
  /** An idle keep-alive connection closes after this: longer than common load balancers' 60 s, so
   *  the balancer, not Kino, closes first (no request lost on a closing connection). */
  keepAliveTimeoutMs: 65_000,
  /** Open connections per process; beyond it new ones are closed at once. Bounds sockets and memory
   *  (each connection costs a few KB) whatever a client opens. */
  maxConnections: 10_000,
  /** Largest API request body (JSON): 413 payload_too_large above it. */
  apiBodyLimitBytes: 1024 * 1024,
} as const;

/** Options for `http.createServer` (and Fastify's `http`): what cannot be set after creation. */
export const httpServerOptions: ServerOptions = {
  maxHeaderSize: httpServerLimits.maxHeaderSizeBytes,
  connectionsCheckingInterval: httpServerLimits.connectionsCheckingIntervalMs,
  headersTimeout: httpServerLimits.headersTimeoutMs,
  requestTimeout: httpServerLimits.requestTimeoutMs,
  keepAliveTimeout: httpServerLimits.keepAliveTimeoutMs,
};

/** Sets the limits a created server carries as properties (Fastify overwrites some at creation). */
export function applyHttpServerLimits(server: Server): void {
  server.headersTimeout = httpServerLimits.headersTimeoutMs;
  server.requestTimeout = httpServerLimits.requestTimeoutMs;
  server.keepAliveTimeout = httpServerLimits.keepAliveTimeoutMs;
  server.maxConnections = httpServerLimits.maxConnections;
}
