// The relay of one orchestrator process: the HTTP/2 sessions that run inside the Connect streams of
// the nodes connected here, and an internal port serving EncodeService for them. Every orchestrator
// calls a node through the relay of the orchestrator holding its stream (the node's row records that
// relay's address), this one included: a gRPC call arriving with `x-kino-node` is forwarded, headers,
// messages and trailers as they are, onto that node's session, and a cancelled call cancels its
// stream there. So the node's gRPC server and the orchestrator's EncodeClient talk as before, with a
// byte-level proxy between them (docs/decisions/node-connect.md).
import http2, { type ClientHttp2Session, type ServerHttp2Stream } from 'node:http2';
import { networkInterfaces } from 'node:os';
import type { Duplex } from 'node:stream';
import { GrpcStatus, nodeMetadataKey } from '@kino/proto';
import type { Logger } from '@kino/infra';

export interface Relay {
  /** HOST:PORT other orchestrators (and this one) call the nodes connected here on. */
  readonly address: string;
  /** Runs an HTTP/2 client session over a node's tunnel; replaces an older session of the same node. */
  attach(nodeId: string, tunnel: Duplex): ClientHttp2Session;
  /** Forgets `session` if it is still the node's (a newer connection of the node stays). */
  detach(nodeId: string, session: ClientHttp2Session): boolean;
  /** Ends the node's connection here, if it has one (its credential was revoked); true if it had. */
  disconnect(nodeId: string): boolean;
  /** The ids of the nodes connected here. */
  connectedNodes(): string[];
  close(): Promise<void>;
}

export interface RelayOptions {
  host: string;
  /** 0: any free port. */
  port: number;
  /** HOST:PORT to record for the nodes connected here; default host:port, or this machine's first non-internal address with a wildcard host. */
  advertise?: string;
  logger: Logger;
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}

/** The address other machines of a container network reach this one on: its first non-internal IPv4. */
function ownAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    const found = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (found) return found.address;
  }
  return '127.0.0.1';
}

// Headers that belong to one HTTP/2 hop and are not forwarded.
const hopHeaders = new Set([':method', ':path', ':scheme', ':authority', ':status', 'connection', nodeMetadataKey]);

function forwardable(headers: http2.IncomingHttpHeaders): http2.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !hopHeaders.has(name)));
}

/** A gRPC answer with no messages: the status in the response headers (a trailers-only response). */
function refuse(stream: ServerHttp2Stream, code: GrpcStatus, message: string): void {
  if (stream.destroyed || stream.closed) return;
  if (stream.headersSent) {
    stream.close(http2.constants.NGHTTP2_CANCEL);
    return;
  }
  stream.respond(
    {
      ':status': 200,
      'content-type': 'application/grpc',
      'grpc-status': String(code),
      'grpc-message': encodeURIComponent(message),
    },
    { endStream: true },
  );
}

/** Forwards one call onto the node's session: the request's bytes up, the response's bytes and trailers down. */
function forward(stream: ServerHttp2Stream, headers: http2.IncomingHttpHeaders, session: ClientHttp2Session): void {
  let upstream: http2.ClientHttp2Stream;
  try {
    upstream = session.request({ ':method': 'POST', ':path': headers[':path'], ...forwardable(headers) });
  } catch (error) {
    refuse(stream, GrpcStatus.UNAVAILABLE, `the node's connection is closing: ${(error as Error).message}`);
    return;
  }
  let trailers: http2.OutgoingHttpHeaders | undefined;
  upstream.on('response', (responseHeaders) => {
    if (stream.destroyed || stream.closed) return;
    if (responseHeaders['grpc-status'] !== undefined) {
      // Trailers-only: the status is in the headers and nothing follows.
      stream.respond(forwardable(responseHeaders), { endStream: true });
      return;
    }
    stream.respond({ ':status': 200, ...forwardable(responseHeaders) }, { waitForTrailers: true });
    upstream.pipe(stream);
  });
  upstream.on('trailers', (received) => {
    trailers = forwardable(received);
  });
  stream.on('wantTrailers', () => {
    // No trailers: the node's connection ended mid-call. The caller takes the node for lost.
    stream.sendTrailers(
      trailers ?? {
        'grpc-status': String(GrpcStatus.UNAVAILABLE),
        'grpc-message': encodeURIComponent("the node's connection ended mid-call"),
      },
    );
  });
  upstream.on('error', () => {});
  upstream.on('close', () => {
    if (!stream.headersSent) refuse(stream, GrpcStatus.UNAVAILABLE, "the node's connection ended before it answered");
    else if (!stream.writableEnded) stream.end();
  });
  stream.pipe(upstream);
  // The caller cancelled (or its connection went): the node's handler sees its call cancelled.
  stream.on('close', () => {
    if (!upstream.closed) upstream.close(http2.constants.NGHTTP2_CANCEL);
  });
  stream.on('error', () => {});
}

export async function startRelay({ host, port, advertise, logger }: RelayOptions): Promise<Relay> {
  const sessions = new Map<string, ClientHttp2Session>();
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    const nodeId = headers[nodeMetadataKey];
    const session = typeof nodeId === 'string' ? sessions.get(nodeId) : undefined;
    if (!session || session.closed || session.destroyed) {
      // Not here (any more): a failure without the node's JobFailure, so the caller takes it for lost.
      refuse(stream, GrpcStatus.UNAVAILABLE, `node ${String(nodeId)} is not connected to this orchestrator`);
      return;
    }
    forward(stream, headers, session);
  });
  // The orchestrators' channels stay open: closing the relay closes them.
  const callers = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    callers.add(session);
    session.on('close', () => callers.delete(session));
  });
  server.on('sessionError', () => {});
  const bound = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
  const address = advertise ?? `${isWildcard(host) ? ownAddress() : host}:${bound}`;
  logger.info({ address, listening: `${host}:${bound}` }, 'node relay listening');

  return {
    address,
    attach(nodeId, tunnel) {
      const session = http2.connect('http://kino-node', { createConnection: () => tunnel });
      session.on('error', (error) => logger.debug({ err: error, nodeId }, "a node's tunnel session failed"));
      const previous = sessions.get(nodeId);
      sessions.set(nodeId, session);
      previous?.destroy();
      return session;
    },
    detach(nodeId, session) {
      session.destroy();
      if (sessions.get(nodeId) !== session) return false;
      sessions.delete(nodeId);
      return true;
    },
    disconnect(nodeId) {
      const session = sessions.get(nodeId);
      // Its 'close' (server.ts) detaches it and marks the node lost.
      session?.destroy();
      return session !== undefined;
    },
    connectedNodes: () => [...sessions.keys()],
    async close() {
      for (const session of sessions.values()) session.destroy();
      sessions.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const caller of callers) caller.destroy();
      await closed;
    },
  };
}
