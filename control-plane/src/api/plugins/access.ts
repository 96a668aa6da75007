// Authentication, rate limiting and authorization, in that order, before anything else runs:
// 1. identify the caller from `X-Api-Key` (only that header: `Authorization` authenticates nothing);
// 2. count the request against its organization's limits (per client address when there is no
//    valid key) and set the X-RateLimit-* headers, so every response carries them, 401s included;
// 3. refuse a missing or bad key (401), a key without reach (403), an unknown environment (404).
//
// Reach: a system key acts on any organization; a full key on every environment of its own
// organization; an environment key only on its own environment (another one: 403). Organization
// paths that are not about one environment (`/{orgID}/videos`, `/{orgID}/environments`) answer an
// environment key with what its environment holds. An environment of another organization in the
// path is `environment_not_found` (404): from that organization's point of view it does not exist.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKey } from '../../db/schema.ts';
import { findActiveApiKey, touchApiKey } from '../../repositories/api-keys.ts';
import { getEnvironment } from '../../repositories/environments.ts';
import { getOrganization } from '../../repositories/organizations.ts';
import {
  ForbiddenError,
  NotFoundError,
  RateLimitError,
  ServiceUnavailableError,
  UnauthorizedError,
  type ApiError,
} from '../errors.ts';
import type { Access } from '../fastify-augment.ts';
import {
  bindingWindow,
  countRequest,
  resolveRateLimits,
  rulesByCategory,
  type RateLimitWindowState,
} from '../rate-limits.ts';
import type { RouteOptions } from '../deps.ts';
import { deleteRateLimitCountersBefore } from '../../repositories/rate-limits.ts';

const COUNTER_CLEANUP_INTERVAL_MS = 10 * 60_000;
const COUNTER_RETENTION_MS = 24 * 3600_000;

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function identifyCaller(request: FastifyRequest, deps: RouteOptions['deps']): Promise<ApiKey | ApiError> {
  const presented = headerValue(request, 'x-api-key')?.trim();
  if (!presented) {
    return new UnauthorizedError(
      headerValue(request, 'authorization') !== undefined
        ? 'The Authorization header is not used by this API: send your API key in the X-Api-Key header.'
        : 'Missing API key: send it in the X-Api-Key header.',
    );
  }
  let key: ApiKey | undefined;
  try {
    key = await findActiveApiKey(deps.db, presented);
  } catch (error) {
    request.log.error({ err: error }, 'API key lookup failed');
    throw new ServiceUnavailableError('The API cannot check keys right now (database unavailable). Try again shortly.');
  }
  if (!key) return new UnauthorizedError('Invalid API key: it is malformed, unknown, revoked or expired.');
  touchApiKey(deps.db, key.id).catch((error: unknown) => request.log.warn({ err: error }, 'could not record key use'));
  return key;
}

function setRateLimitHeaders(reply: FastifyReply, window: RateLimitWindowState, nowSeconds: number): void {
  reply.header('X-RateLimit-Limit', window.limit);
  reply.header('X-RateLimit-Remaining', window.remaining);
  reply.header('X-RateLimit-Reset', window.reset);
  if (window.exceeded) reply.header('Retry-After', Math.max(1, window.reset - nowSeconds));
}

async function authorize(request: FastifyRequest, key: ApiKey, deps: RouteOptions['deps']): Promise<Access> {
  const params = (request.params ?? {}) as { orgID?: string; envID?: string };
  const orgId = params.orgID;
  if (!orgId) throw new ForbiddenError('This route is not available to API keys.');
  if (key.type !== 'system' && key.org_id !== orgId) {
    throw new ForbiddenError('This API key belongs to another organization.');
  }
  if (key.type === 'system' && !(await getOrganization(deps.db, orgId))) {
    throw new NotFoundError('organization_not_found', `Organization ${orgId} does not exist.`);
  }
  const access: Access = { key, orgId };
  if (params.envID !== undefined) {
    if (key.type === 'environment' && key.env_id !== params.envID) {
      throw new ForbiddenError('This API key is limited to another environment.');
    }
    const environment = await getEnvironment(deps.db, params.envID);
    if (!environment || environment.org_id !== orgId) {
      throw new NotFoundError('environment_not_found', `Environment ${params.envID} does not exist in organization ${orgId}.`);
    }
    access.environment = environment;
  }
  return access;
}

async function accessPlugin(app: FastifyInstance, { deps }: RouteOptions): Promise<void> {
  const rules = resolveRateLimits({ ...deps.config.RATE_LIMITS, ...deps.rateLimits });
  const now = deps.now ?? (() => new Date());

  app.addHook('onRequest', async (request, reply) => {
    // CORS preflights carry no key by design; @fastify/cors answers them.
    if (request.method === 'OPTIONS') return;
    const config = request.routeOptions.config ?? {};
    const needsKey = !request.is404 && config.auth !== 'none';

    const caller = needsKey ? await identifyCaller(request, deps) : undefined;
    const key = caller && !(caller instanceof Error) ? caller : undefined;

    const params = (request.params ?? {}) as { orgID?: string };
    const category = key ? (config.rateLimit ?? 'general') : 'anonymous';
    const subject = {
      // System keys act for the organization in the path: that organization's budget is spent.
      organizationId: key ? (key.type === 'system' ? (params.orgID ?? key.org_id) : key.org_id) : undefined,
      keyId: key?.id,
      clientAddress: request.ip,
    };
    const at = now();
    let windows: RateLimitWindowState[];
    try {
      windows = await countRequest(deps.db, rules, rulesByCategory[category], subject, at);
    } catch (error) {
      request.log.error({ err: error }, 'rate-limit counters unavailable');
      // /health must still answer when the database is down; everything else needs the database anyway.
      if (!needsKey) return;
      throw new ServiceUnavailableError('The API cannot count requests right now (database unavailable). Try again shortly.');
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
    if (key) request.access = await authorize(request, key, deps);
  });

  // Old windows are of no use: drop them now and then (any instance may; the delete is idempotent).
  const cleanup = setInterval(() => {
    deleteRateLimitCountersBefore(deps.db, new Date(now().getTime() - COUNTER_RETENTION_MS)).catch((error: unknown) =>
      app.log.warn({ err: error }, 'rate-limit counter cleanup failed'),
    );
  }, COUNTER_CLEANUP_INTERVAL_MS);
  cleanup.unref();
  app.addHook('onClose', async () => clearInterval(cleanup));
}

export default fp(accessPlugin, { name: 'kino-access', fastify: '5.x' });

/** For handlers: the access the hook granted (routes that require a key always have it). */
export function accessOf(request: FastifyRequest): Access {
  if (!request.access) throw new Error(`route ${request.routeOptions.url ?? ''} ran without an access check`);
  return request.access;
}

/** An environment key sees only its own environment's resources. */
export function assertEnvironmentReach(access: Access, envId: string): void {
  if (access.key.type === 'environment' && access.key.env_id !== envId) {
    throw new ForbiddenError('This API key is limited to another environment.');
  }
}

/** The environment an organization-wide listing is limited to, for an environment key. */
export function environmentScope(access: Access): string | undefined {
  return access.key.type === 'environment' ? (access.key.env_id ?? undefined) : undefined;
}
