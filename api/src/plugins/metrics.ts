// The API's metrics (docs/metrics.md): every request counted and timed by its route's pattern
// (`/v1/api/:orgID/...`, never the raw URL: bounded label values), method and status, and the
// registry served at `GET /metrics` (outside /v1/api, not in the OpenAPI document), behind
// METRICS_TOKEN when it is set. No API key: Prometheus has none.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { answerMetrics, httpRequestMetrics, type Registry } from '@kino/infra';
import type { RouteOptions } from '../deps.ts';

async function metricsPlugin(
  app: FastifyInstance,
  { deps, registry }: RouteOptions & { registry: Registry },
): Promise<void> {
  const http = httpRequestMetrics(registry);
  app.addHook('onResponse', async (request, reply) => {
    // Requests no route matched (404s, refused methods) share one label.
    const route = request.routeOptions.url ?? 'unmatched';
    http.requests.inc({ route, method: request.method, status: reply.statusCode });
    http.seconds.observe({ route, method: request.method }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { config: { auth: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const answer = await answerMetrics(registry, deps.config.METRICS_TOKEN, request.headers.authorization);
    return reply
      .code(answer.status)
      .headers({ ...answer.headers, 'cache-control': 'no-store' })
      .send(answer.body);
  });
}

export default fp(metricsPlugin, { name: 'kino-metrics' });
