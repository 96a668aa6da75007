// 405 with `Allow` for a method a known path does not declare (RFC 9110 §15.5.6), instead of the
// 404 a router gives for any unmatched method and path. Fastify's router only knows whole routes,
// so: every route the API declares is recorded as it is added (`onRoute`), and once all are in,
// each path gets one more route for the methods it lacks, answering 405 before the body is read.
// OPTIONS stays with CORS (preflights on every path); HEAD comes with each GET.
import type { FastifyBaseLogger, FastifyInstance, FastifyTypeProvider, RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MethodNotAllowedError } from '../http/errors.ts';

export interface DeclaredMethods {
  /** Adds the 405 routes; call once every route is registered. */
  answerUndeclaredMethods(): void;
}

export function trackDeclaredMethods<Logger extends FastifyBaseLogger, Provider extends FastifyTypeProvider>(
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger, Provider>,
): DeclaredMethods {
  const byPath = new Map<string, Set<string>>();
  let closed = false;
  app.addHook('onRoute', (route) => {
    if (closed || route.url === '*' || route.url.endsWith('/*')) return;
    const methods = byPath.get(route.url) ?? new Set<string>();
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) methods.add(method);
    byPath.set(route.url, methods);
  });
  return {
    answerUndeclaredMethods() {
      closed = true;
      for (const [url, declared] of byPath) {
        if (declared.has('GET')) declared.add('HEAD');
        const allow = [...declared, 'OPTIONS'].join(', ');
        const undeclared = app.supportedMethods.filter((method) => !declared.has(method) && method !== 'OPTIONS');
        if (undeclared.length === 0) continue;
        app.route({
          method: undeclared,
          url,
          config: { auth: 'none' },
          schema: { hide: true },
          // onRequest, so a body is never parsed (a 415 or 413 would hide the 405).
          onRequest: async (request, reply) => {
            reply.header('Allow', allow);
            throw new MethodNotAllowedError(request.method, allow);
          },
          handler: async () => undefined,
        });
      }
    },
  };
}
