// The delivery node's HTTP server. Plain node:http rather than Fastify: the hot path is one regex
// route and a cached buffer written to a socket, and the benchmark (bench/delivery) measures it
// against nginx, so every microsecond a framework spends on routing hooks and schema-less replies
// would show. There is no API key here; public videos play freely, private ones with a token.
// This file is the server alone: the request's method, /metrics, the path's route, the request
// metrics and the error envelope. Each kind of route has one handler (routes/table.ts), one file
// per family of routes in routes/; every file or page goes out through sendBody (responses.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  answerClientError,
  applyHttpServerLimits,
  httpServerOptions,
  serveMetrics,
  StorageUnavailableError,
  type Registry,
} from '@kino/infra';
import { DatabaseUnavailableError } from '@kino/database';
import type { SegmentDelivery } from '@kino/analytics';
import { BEACONS_PATH } from '@kino/proto/contract';
import { CaptionFiles } from './captions.ts';
import { DeliveryError, databaseUnavailable, storageUnavailable } from './errors.ts';
import { LivePlaylistWaits } from './live-playlist-waits.ts';
import type { DeliveryMetrics } from './metrics.ts';
import { parseDeliveryPath, type DeliveryRoute, type Family } from './paths.ts';
import { corsHeaders, sendJson } from './responses.ts';
import type { RouteDeps } from './routes/context.ts';
import { answerRoute } from './routes/table.ts';
import type { SegmentLog } from './segment-log.ts';

export interface DeliveryDeps extends Omit<
  RouteDeps,
  'captionFiles' | 'rewrittenPlaylists' | 'recordSegment' | 'livePlaylists'
> {
  segments: Pick<SegmentLog, 'record'>;
  /** The node's metrics (metrics.ts) and the registry `GET /metrics` serves, behind METRICS_TOKEN when set. */
  metrics: { counters: DeliveryMetrics; registry: Registry; token?: string };
}

/** The route handlers' deps: the node's, and what lives as long as its server (caches of made files, the segment recorder). */
function routeDepsOf(deps: DeliveryDeps): RouteDeps {
  const { counters } = deps.metrics;
  return {
    ...deps,
    captionFiles: new CaptionFiles(deps.cache),
    rewrittenPlaylists: new Map(),
    livePlaylists: new LivePlaylistWaits((key) => deps.cache.getUncached(key)),
    // Counters only: the hot path. The segment's bytes go out once the returned promise resolves (the row is written).
    recordSegment(delivery: SegmentDelivery, family: Family): Promise<void> {
      counters.segments.count(family, delivery.access, delivery.bytes);
      return deps.segments.record(delivery);
    },
  };
}

export function createDeliveryServer(deps: DeliveryDeps): Server {
  const { logger } = deps;
  const { counters } = deps.metrics;
  const routeDeps = routeDepsOf(deps);

  /** Answers the request, setting `route.label` for the request metrics (a pattern, never the URL). */
  async function handle(req: IncomingMessage, res: ServerResponse, route: { label: string }): Promise<void> {
    const method = req.method;
    if (method === 'OPTIONS') {
      route.label = 'preflight';
      res.writeHead(204, { ...corsHeaders, 'Content-Length': '0' });
      res.end();
      return;
    }
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    // A player's beacons are the one thing posted here (routes/beacons.ts checks the method).
    if (method !== 'GET' && method !== 'HEAD' && path !== BEACONS_PATH) {
      throw new DeliveryError(405, 'method_not_allowed', `${method} is not served here: use GET or HEAD.`, undefined, {
        Allow: 'GET, HEAD, OPTIONS',
      });
    }
    const params = new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1));
    if (path === '/metrics') {
      route.label = 'metrics';
      await serveMetrics(deps.metrics.registry, deps.metrics.token, req, res);
      return;
    }
    const parsed = parseDeliveryPath(path);
    if (!parsed) throw new DeliveryError(404, 'not_found', `Nothing is served at ${path}.`);
    route.label = routeLabel(parsed);
    await answerRoute(routeDeps, { req, res, params }, parsed);
  }

  // Timeouts, header size, connections: infra/src/http-server-limits.ts (docs/security.md).
  const server = createServer(httpServerOptions, (req, res) => {
    const started = performance.now();
    const route = { label: 'unmatched' };
    handle(req, res, route)
      .catch((error: unknown) => sendError(req, res, error))
      .finally(() => {
        const method =
          req.method === 'HEAD'
            ? 'HEAD'
            : req.method === 'GET'
              ? 'GET'
              : req.method === 'OPTIONS'
                ? 'OPTIONS'
                : req.method === 'POST'
                  ? 'POST'
                  : 'other';
        counters.http.requests.inc({ route: route.label, method, status: res.statusCode });
        // Media segments are the hot path: counted, not timed (docs/metrics.md).
        if (!route.label.endsWith('/segment'))
          counters.http.seconds.observe({ route: route.label, method }, (performance.now() - started) / 1000);
      });
  });
  applyHttpServerLimits(server);
  // What Node's parser refuses (headers or URL over 16 KB, malformed requests) answers in the envelope too.
  server.on('clientError', answerClientError);

  function sendError(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    const known = error instanceof DeliveryError;
    const failure = known
      ? error
      : error instanceof DatabaseUnavailableError
        ? databaseUnavailable()
        : error instanceof StorageUnavailableError
          ? storageUnavailable()
          : new DeliveryError(500, 'internal_error', 'The delivery node failed to answer; try again.');
    // Logged: an unexpected error, and an answer of the node's own that says "try again" (a segment
    // still being made, signing keys out of reach), so the operator sees why players retried. The
    // path, not the query: a private URL's token is a credential.
    if (!known || failure.status >= 500) {
      const path = (req.url ?? '').split('?')[0];
      if (!known) logger.error({ err: error, path }, 'delivery request failed');
      else
        logger.warn(
          { path, status: failure.status, code: failure.code, detail: failure.detail },
          'delivery answered 5xx',
        );
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendJson(req, res, failure.status, failure.body(), failure.headers);
  }

  return server;
}

/** The route's label in the request metrics: the path family and resource, or the kind of path. */
function routeLabel(route: DeliveryRoute): string {
  switch (route.kind) {
    case 'playback':
      return `${route.family}/${route.resource.type}`;
    case 'share':
      return `share/${route.resource.type}`;
    default:
      return route.kind;
  }
}
