// The API as a Fastify instance built from injected dependencies: server.ts listens with it, tests
// call `app.inject` or listen on a free port. Everything lives under /v1/api. It puts together the
// API (routes/, plugins/) and the dashboard mounted beside it (dashboard/), so it sits outside both:
// dashboard/ uses the API's parts, never the reverse.
import Fastify from 'fastify';
import cors from '@fastify/cors';
import cookie from '@fastify/cookie';
import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import './http/fastify-augment.ts';
import type { ApiDeps } from './deps.ts';
import accessPlugin from './plugins/access.ts';
import { answerClientError, applyHttpServerLimits, httpServerLimits, httpServerOptions, Registry } from '@kino/infra';
import errorHandlerPlugin, { sendError } from './plugins/error-handler.ts';
import strictRequestsPlugin, { isNoBody } from './plugins/strict-requests.ts';
import jsonBodyPlugin from './plugins/json-body.ts';
import { trackDeclaredMethods } from './plugins/method-not-allowed.ts';
import idempotencyPlugin from './plugins/idempotency.ts';
import metricsPlugin from './plugins/metrics.ts';
import { registerRoutes } from './routes/index.ts';
import { scheduleUploadSweeps } from './uploads/sweeps.ts';
import { acceptsNoBody, typeboxValidatorCompiler } from './http/validation.ts';
import { postgresServedSegments } from './videos/served-segments.ts';
import { apiVersion } from './http/version.ts';
import { registerApiReference } from './http/api-reference.ts';
import { REQUEST_ID_HEADER, requestIdOf } from './http/request-id.ts';
import { OidcClient } from './sessions/oidc.ts';
import { DashboardSessions } from './sessions/sessions.ts';
import { dashboardCookies } from './sessions/cookies.ts';
import { dashboardPlugin } from './dashboard/plugin.ts';

export const API_PREFIX = '/v1/api';

/** The OpenAPI document of the API (@fastify/swagger), made of every route's schemas. */
const openApiDocument: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.0.3',
    info: {
      title: 'Kino API',
      version: apiVersion,
      description:
        'Video hosting and delivery: signed uploads, transcoding to HLS, management and analytics. ' +
        'Every successful response is `{ "body": ... }`; errors are `{ title, status, detail, code, errors? }`. ' +
        'Every response carries `X-Request-Id` (the one the request sent, when it is 1-128 characters of ' +
        '`A-Z a-z 0-9 . _ : + = @ / -`); a 5xx detail names it. ' +
        'Every POST takes an optional `Idempotency-Key` (a retry with the same key answers the first response). ' +
        'A JSON body or query string with a field the operation does not declare answers 400 `invalid_request` naming it ' +
        '(`errors[].location`, e.g. `body.maxEdgeLenght`) and, when one is close, the field it most likely meant. ' +
        'This document is served at `/v1/api/openapi.json` and rendered at `/v1/api/docs`.',
    },
    servers: [{ url: API_PREFIX }],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } },
    },
    security: [{ apiKey: [] }],
  },
  // Paths in the document are relative to the server URL above, like the spec's. An operation that
  // takes no body documents none (its NoBody schema only refuses fields: plugins/strict-requests.ts).
  transform: ({ schema, url }) => {
    if (schema?.operationId && acceptsNoBody(schema.body)) optionalBodyOperations.add(schema.operationId);
    return {
      schema: schema && isNoBody(schema.body) ? { ...schema, body: undefined } : schema,
      url: url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) || '/' : url,
    };
  },
  // @fastify/swagger documents every body as required; one the validator takes when left out
  // (acceptsNoBody) is documented as optional.
  transformObject: (document) => {
    if (!('openapiObject' in document)) return document.swaggerObject;
    for (const operations of Object.values(document.openapiObject.paths ?? {}))
      for (const operation of Object.values(operations ?? {}) as DocumentedOperation[])
        if (operation?.requestBody && optionalBodyOperations.has(operation.operationId ?? ''))
          operation.requestBody.required = false;
    return document.openapiObject;
  },
};

/** What `transformObject` reads of a path item's members (operations, and a few other fields). */
type DocumentedOperation = { operationId?: string; requestBody?: { required?: boolean } } | undefined;

/** The operations whose body may be left out (validation.ts's acceptsNoBody), by operationId. */
const optionalBodyOperations = new Set<string>();

/**
 * The dashboard's sign-in and sessions when it is configured (config.ts requires the provider's
 * settings with DASHBOARD_URL); sessions a test hands in win.
 */
function dashboardSignIn(given: ApiDeps): { oidc?: OidcClient; dashboard?: ApiDeps['dashboard'] } {
  const { config } = given;
  if (!config.DASHBOARD_URL) return { dashboard: given.dashboard };
  const oidc = new OidcClient({
    issuer: config.OIDC_ISSUER!,
    clientId: config.OIDC_CLIENT_ID!,
    clientSecret: config.OIDC_CLIENT_SECRET!,
    scopes: config.OIDC_SCOPES,
    redirectUri: `${config.DASHBOARD_URL}/auth/callback`,
    postLogoutRedirectUri: `${config.DASHBOARD_URL}/auth/signed-out`,
  });
  const dashboard = given.dashboard ?? {
    sessions: new DashboardSessions({
      db: given.db,
      oidc,
      secret: config.DASHBOARD_SESSION_SECRET!,
      idleMs: config.DASHBOARD_SESSION_IDLE_HOURS * 3600_000,
      organizationsClaim: config.OIDC_ORGANIZATIONS_CLAIM,
      logger: given.logger,
      now: given.now,
    }),
    cookies: dashboardCookies(config.DASHBOARD_URL),
  };
  return { oidc, dashboard };
}

export async function buildApp(given: ApiDeps) {
  const { config } = given;
  const { oidc, dashboard } = dashboardSignIn(given);
  // `served` reads the copy the rollup refresher keeps in PostgreSQL (videos/served-segments.ts); tests may hand in another source.
  const deps: ApiDeps = {
    ...given,
    servedSegments: given.servedSegments ?? postgresServedSegments(given.db),
    dashboard,
  };
  const app = Fastify({
    loggerInstance: deps.logger,
    // The client's X-Request-Id when valid, else a new one; answered on every response and named in
    // 5xx details, so an operator can find the log line.
    genReqId: requestIdOf,
    // Behind a reverse proxy the client is the address it forwards (API_TRUSTED_PROXIES); trusted
    // from nowhere else, so no client passes for another by sending the header.
    trustProxy: deps.config.API_TRUSTED_PROXIES.length > 0 ? deps.config.API_TRUSTED_PROXIES : false,
    // Longer than any URL Node lets through (its 16 KB header limit answers 431 first), so a long
    // path parameter is judged by the route's schema (400 with the field named), never a bare 414.
    routerOptions: { maxParamLength: 16 * 1024 },
    // Errors met before routing (a bad percent-encoding) and before Fastify (a request Node's parser
    // refuses) answer in the envelope too.
    frameworkErrors: (error, request, reply) => {
      void sendError(error, request, reply);
    },
    clientErrorHandler: answerClientError,
    // Timeouts, header and body sizes, connections: infra/src/http-server-limits.ts (docs/security.md).
    http: httpServerOptions,
    requestTimeout: httpServerLimits.requestTimeoutMs,
    keepAliveTimeout: httpServerLimits.keepAliveTimeoutMs,
    bodyLimit: httpServerLimits.apiBodyLimitBytes,
    // A `__proto__` or `constructor.prototype` key in a JSON body is dropped as the body is parsed, so
    // no handler ever holds one. The documented routes' schemas are closed (plugins/strict-requests.ts)
    // and none allows extra properties, so there the key could only be refused; the parser is still
    // the one place that sees every body, the dashboard's hidden routes included, which keep their
    // schemas as written (a POST without a body schema takes any body unvalidated).
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
  }).withTypeProvider<TypeBoxTypeProvider>();

  applyHttpServerLimits(app.server);
  app.setValidatorCompiler(typeboxValidatorCompiler);
  // First, so every answer carries it: routes, refusals, errors, the dashboard.
  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
  await app.register(errorHandlerPlugin);
  await app.register(strictRequestsPlugin);
  await app.register(jsonBodyPlugin);
  const declaredMethods = trackDeclaredMethods(app);

  await app.register(cors, {
    // Only configured origins get CORS headers; an empty list allows none.
    origin: deps.config.API_CORS_ORIGINS,
    methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['X-Api-Key', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
    exposedHeaders: [
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
      'Idempotent-Replayed',
      'X-Request-Id',
    ],
    maxAge: 3600,
  });

  await app.register(swagger, openApiDocument);

  // Counts every request, errors and refusals included, so it goes first; serves GET /metrics.
  await app.register(metricsPlugin, { deps, registry: deps.metricsRegistry ?? new Registry() });
  // Cookies are read by the access hook (the dashboard's session); the secret signs the sign-in cookie.
  await app.register(cookie, { secret: config.DASHBOARD_SESSION_SECRET });
  await app.register(accessPlugin, { deps });
  // After access (the key's organization is known), before the routes (it adds the header to each POST).
  await app.register(idempotencyPlugin, { deps });

  await app.register(
    async (api) => {
      api.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
      // The same document rendered for people, at /v1/api/docs.
      await registerApiReference(api, API_PREFIX);
      await registerRoutes(api, { deps });
    },
    { prefix: API_PREFIX },
  );
  if (oidc) await app.register(dashboardPlugin, { deps, oidc });
  declaredMethods.answerUndeclaredMethods();
  const stopSweep = scheduleUploadSweeps(deps, app.log);
  app.addHook('onClose', async () => stopSweep());

  return app;
}

export type ApiApp = Awaited<ReturnType<typeof buildApp>>;
