// Authentication, rate limiting and authorization, in that order, before anything else runs:
// 1. identify the caller from `X-Api-Key` (only that header: `Authorization` authenticates nothing),
//    or else from the dashboard's session cookie (with its CSRF token on anything but GET/HEAD);
// 2. count the request against its organization's limits (per client address when there is no
//    valid key) and set the X-RateLimit-* headers, so every response carries them, 401s included;
// 3. refuse a missing or bad key (401), a key without reach (403), an unknown environment (404).
//
// Reach: a system key acts on any organization; a full key on every environment of its own
// organization; an environment key only on its own environment (another one: 403). Organization
// paths that are not about one environment (`/{orgID}/videos`, `/{orgID}/environments`) answer an
// environment key with what its environment holds. An environment of another organization in the
// path is `environment_not_found` (404): from that organization's point of view it does not exist.
// A dashboard session acts like a full key on each organization its user is a member of, checked on
// every request (api/src/sessions/sessions.ts); another organization is `not_a_member`.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKey } from '@kino/database';
import {
  findActiveApiKey,
  touchApiKey,
  getEnvironment,
  getOrganization,
  deleteRateLimitCountersBefore,
} from '@kino/database/repositories';
import {
  CsrfTokenError,
  ForbiddenError,
  NotMemberError,
  NotFoundError,
  RateLimitError,
  ServiceUnavailableError,
  UnauthorizedError,
  type ApiError,
} from '../http/errors.ts';
import type { Access, Caller, PathEnvironment } from '../http/fastify-augment.ts';
import {
  bindingWindow,
  countRequest,
  resolveRateLimits,
  rulesByCategory,
  type RateLimitWindowState,
} from './rate-limits.ts';
import { clockOf, type RouteOptions } from '../deps.ts';

const COUNTER_CLEANUP_INTERVAL_MS = 10 * 60_000;
const COUNTER_RETENTION_MS = 24 * 3600_000;
/**
 * touchApiKey writes a key's last use at most once a minute, but asking costs a statement on every
 * request; this instance asks at most once a minute per key, so `last_used_at` may lag the key's
 * last use by up to about two minutes.
 */
const KEY_TOUCH_INTERVAL_MS = 60_000;

/**
 * What one API instance remembers between requests (made by accessPlugin, so each app built in a
 * test has its own):
 * - when it last asked to record each key's use;
 * - the environments it found, by id: their id and organization only. An environment is never
 *   deleted and never moves to another organization, so that copy never goes stale (its settings
 *   do change, PATCH .../environments/{envID}: they are not kept); only environments that exist are
 *   kept (one created after a miss is found next time). It saves every environment path (lists,
 *   upload URLs, process) a round trip before its own queries.
 */
interface AccessMemory {
  keyTouches: Map<string, number>;
  environments: Map<string, PathEnvironment>;
}

// Access is checked before the route's schema, so a path id may still hold NUL here; PostgreSQL's
// text refuses it (a 500), and no such id exists.
const isStorableId = (id: string) => !id.includes('\u0000');

async function environmentOf(
  db: RouteOptions['deps']['db'],
  memory: AccessMemory,
  envId: string,
): Promise<PathEnvironment | undefined> {
  const cached = memory.environments.get(envId);
  if (cached) return cached;
  if (!isStorableId(envId)) return undefined;
  const found = await getEnvironment(db, envId);
  if (!found) return undefined;
  const environment = { id: found.id, org_id: found.org_id };
  memory.environments.set(envId, environment);
  return environment;
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function identifyCaller(
  request: FastifyRequest,
  deps: RouteOptions['deps'],
  memory: AccessMemory,
  sessionOnly: boolean,
): Promise<Caller | ApiError> {
  const presented = headerValue(request, 'x-api-key')?.trim();
  if (presented && !sessionOnly) return identifyKey(request, deps, memory, presented);
  const dashboard = deps.dashboard;
  const sessionId = dashboard ? request.cookies[dashboard.cookies.session.name] : undefined;
  if (dashboard && sessionId) {
    let user;
    try {
      user = await dashboard.sessions.authenticate(sessionId);
    } catch (error) {
      request.log.error({ err: error }, 'dashboard session lookup failed');
      throw new ServiceUnavailableError(
        'The API cannot check sessions right now (database unavailable). Try again shortly.',
      );
    }
    if (!user) return new UnauthorizedError('Your dashboard session has ended: sign in again.');
    // The cookie goes with any request the browser makes, a forged cross-site one too; the token
    // is readable only by the dashboard's own pages (GET /dashboard/api/session).
    if (
      !SAFE_METHODS.has(request.method) &&
      !dashboard.sessions.checkCsrfToken(user, headerValue(request, 'x-csrf-token'))
    ) {
      return new CsrfTokenError("This request needs the session's CSRF token in the X-CSRF-Token header.");
    }
    return { kind: 'session', user };
  }
  if (sessionOnly) return new UnauthorizedError('Sign in to the dashboard first.');
  return new UnauthorizedError(
    headerValue(request, 'authorization') !== undefined
      ? 'The Authorization header is not used by this API: send your API key in the X-Api-Key header.'
      : 'Missing API key: send it in the X-Api-Key header.',
  );
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

async function identifyKey(
  request: FastifyRequest,
  deps: RouteOptions['deps'],
  memory: AccessMemory,
  presented: string,
): Promise<Caller | ApiError> {
  let key: ApiKey | undefined;
  try {
    key = await findActiveApiKey(deps.db, presented);
  } catch (error) {
    request.log.error({ err: error }, 'API key lookup failed');
    throw new ServiceUnavailableError('The API cannot check keys right now (database unavailable). Try again shortly.');
  }
  if (!key) return new UnauthorizedError('Invalid API key: it is malformed, unknown, revoked or expired.');
  const now = Date.now();
  if (now - (memory.keyTouches.get(key.id) ?? -Infinity) >= KEY_TOUCH_INTERVAL_MS) {
    memory.keyTouches.set(key.id, now);
    touchApiKey(deps.db, key.id).catch((error: unknown) =>
      request.log.warn({ err: error }, 'could not record key use'),
    );
  }
  return { kind: 'apiKey', key };
}

function setRateLimitHeaders(reply: FastifyReply, window: RateLimitWindowState, nowSeconds: number): void {
  reply.header('X-RateLimit-Limit', window.limit);
  reply.header('X-RateLimit-Remaining', window.remaining);
  reply.header('X-RateLimit-Reset', window.reset);
  if (window.exceeded) reply.header('Retry-After', Math.max(1, window.reset - nowSeconds));
}

async function authorize(
  request: FastifyRequest,
  caller: Caller,
  deps: RouteOptions['deps'],
  memory: AccessMemory,
): Promise<Access | undefined> {
  const params = (request.params ?? {}) as { orgID?: string; envID?: string };
  const orgId = params.orgID;
  if (caller.kind === 'session') {
    // The dashboard's routes without an organization (the session itself, the farm) check their own reach.
    if (!orgId) return undefined;
    if (!caller.user.organizationIds.has(orgId)) {
      throw new NotMemberError(`${caller.user.email} is not a member of organization ${orgId}.`);
    }
  } else {
    const { key } = caller;
    if (!orgId) throw new ForbiddenError('This route is not available to API keys.');
    if (key.type !== 'system' && key.org_id !== orgId) {
      throw new ForbiddenError('This API key belongs to another organization.');
    }
    if (key.type === 'system' && !(isStorableId(orgId) && (await getOrganization(deps.db, orgId)))) {
      throw new NotFoundError('organization_not_found', `Organization ${orgId} does not exist.`);
    }
  }
  const access: Access = { caller, orgId };
  if (params.envID !== undefined) {
    assertEnvironmentReach(access, params.envID);
    const environment = await environmentOf(deps.db, memory, params.envID);
    if (!environment || environment.org_id !== orgId) {
      throw new NotFoundError(
        'environment_not_found',
        `Environment ${params.envID} does not exist in organization ${orgId}.`,
      );
    }
    access.environment = environment;
  }
  return access;
}

async function accessPlugin(app: FastifyInstance, { deps }: RouteOptions): Promise<void> {
  const rules = resolveRateLimits({ ...deps.config.RATE_LIMITS, ...deps.rateLimits });
  const now = clockOf(deps);
  const memory: AccessMemory = { keyTouches: new Map(), environments: new Map() };

  app.addHook('onRequest', async (request, reply) => {
    // CORS preflights carry no key by design; @fastify/cors answers them.
    if (request.method === 'OPTIONS') return;
    const config = request.routeOptions.config ?? {};
    const needsKey = !request.is404 && config.auth !== 'none';

    const caller = needsKey ? await identifyCaller(request, deps, memory, config.auth === 'session') : undefined;
    const known = caller && !(caller instanceof Error) ? caller : undefined;

    const params = (request.params ?? {}) as { orgID?: string };
    const category = known ? (config.rateLimit ?? 'general') : 'anonymous';
    const subject = { ...rateLimitOwner(known, params.orgID), clientAddress: request.ip };
    const at = now();
    let windows: RateLimitWindowState[];
    try {
      windows = await countRequest(deps.db, rules, rulesByCategory[category], subject, at);
    } catch (error) {
      request.log.error({ err: error }, 'rate-limit counters unavailable');
      // /health must still answer when the database is down; everything else needs the database anyway.
      if (!needsKey) return;
      throw new ServiceUnavailableError(
        'The API cannot count requests right now (database unavailable). Try again shortly.',
      );
    }
    const binding = bindingWindow(windows);
    if (binding) setRateLimitHeaders(reply, binding, Math.floor(at.getTime() / 1000));

    // Over the limit is refused before anything else, bad keys included: a flood of guesses gets 429.
    if (binding?.exceeded) {
      const window = rules[binding.rule];
      throw new RateLimitError(
        `Rate limit exceeded: ${window.limit} requests per ${window.windowSeconds} s (${binding.rule}). ` +
          `Try again after ${new Date(binding.reset * 1000).toISOString()}.`,
      );
    }
    if (caller instanceof Error) throw caller;
    if (known) {
      request.caller = known;
      request.access = await authorize(request, known, deps, memory);
    }
  });

  // Old windows are of no use: drop them now and then (any instance may; the delete is idempotent).
  const cleanup = setInterval(() => {
    for (const [keyId, at] of memory.keyTouches)
      if (Date.now() - at >= KEY_TOUCH_INTERVAL_MS) memory.keyTouches.delete(keyId);
    deleteRateLimitCountersBefore(deps.db, new Date(now().getTime() - COUNTER_RETENTION_MS)).catch((error: unknown) =>
      app.log.warn({ err: error }, 'rate-limit counter cleanup failed'),
    );
  }, COUNTER_CLEANUP_INTERVAL_MS);
  cleanup.unref();
  app.addHook('onClose', async () => clearInterval(cleanup));
}

export default fp(accessPlugin, { name: 'kino-access', fastify: '5.x' });

/**
 * Whose budget a request spends: its key's organization; for a system key, the organization in the
 * path. A session spends its member's own budget in that organization, at the same rates as an
 * organization's and never the one the API keys share: an open dashboard cannot lock the
 * organization's integrations out, nor one member another (docs/decisions/dashboard.md#budgets).
 */
function rateLimitOwner(
  caller: Caller | undefined,
  pathOrgId: string | undefined,
): { organizationId?: string; memberId?: string; keyId?: string } {
  if (!caller) return {};
  if (caller.kind === 'session') {
    // Outside an organization of theirs (the dashboard's own routes, another organization's path),
    // the user's budget is counted under no organization.
    const member = pathOrgId !== undefined && caller.user.organizationIds.has(pathOrgId);
    return { organizationId: member ? pathOrgId : undefined, memberId: caller.user.subject, keyId: callerId(caller) };
  }
  const { key } = caller;
  return { organizationId: key.type === 'system' ? (pathOrgId ?? key.org_id) : key.org_id, keyId: key.id };
}

/** A stable id of the caller: the key's id, or the session user's (idempotency keys and per-key limits are per caller). */
export function callerId(caller: Caller): string {
  return caller.kind === 'apiKey' ? caller.key.id : `user:${caller.user.subject}`;
}

/** For handlers: the access the hook granted (routes that require a key always have it). */
export function accessOf(request: FastifyRequest): Access {
  if (!request.access) throw new Error(`route ${request.routeOptions.url ?? ''} ran without an access check`);
  return request.access;
}

/** An environment key sees only its own environment's resources. */
export function assertEnvironmentReach(access: Access, envId: string): void {
  const scope = environmentScope(access);
  if (scope !== undefined && scope !== envId) {
    throw new ForbiddenError('This API key is limited to another environment.');
  }
}

/** The environment an organization-wide listing is limited to, for an environment key. */
export function environmentScope(access: Access): string | undefined {
  const { caller } = access;
  return caller.kind === 'apiKey' && caller.key.type === 'environment' ? (caller.key.env_id ?? undefined) : undefined;
}
