// /dashboard/api/*: what the dashboard needs that the API deliberately lacks. Everything else the
// dashboard does through the ordinary API (/v1/api) with its session. Session-only routes
// (config.auth 'session'): the access hook has checked the session, the CSRF token and, for
// routes with an {orgID}, membership.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { ApiDeps } from '../deps.ts';
import type { ApiKey } from '@kino/database';
import {
  createApiKey,
  getApiKey,
  listApiKeys,
  revokeApiKey,
  createEnvironment,
  getEnvironment,
  listEnvironments,
  getOrganization,
} from '@kino/database/repositories';
import { BadRequestError, ForbiddenError, NotFoundError } from '../http/errors.ts';
import { Envelope, Id, StringEnum, Text } from '../schemas/common.ts';
import { accessOf } from '../plugins/access.ts';
import { drainNode, listFarmNodes, NodeSchema } from '../routes/operators.ts';
import { EnvironmentSchema, presentEnvironment } from '../routes/environments.ts';
import type { DashboardUser } from '../sessions/sessions.ts';

const session = { auth: 'session' as const };
const hide = true;

const KeySchema = Type.Object({
  id: Type.String(),
  type: StringEnum(['environment', 'full', 'system']),
  envId: Type.Union([Type.String(), Type.Null()]),
  live: Type.Boolean(),
  /** The first characters only: keys are stored as hashes. */
  prefix: Type.String(),
  createdAt: Type.String(),
  lastUsedAt: Type.Union([Type.String(), Type.Null()]),
  revokedAt: Type.Union([Type.String(), Type.Null()]),
});

function presentKey(key: ApiKey) {
  return {
    id: key.id,
    type: key.type,
    envId: key.env_id,
    live: key.live,
    prefix: key.key_prefix,
    createdAt: key.created_at.toISOString(),
    lastUsedAt: key.last_used_at?.toISOString() ?? null,
    revokedAt: key.revoked_at?.toISOString() ?? null,
  };
}

const OrgParams = Type.Object({ orgID: Id });

function userOf(request: FastifyRequest): DashboardUser {
  const caller = request.caller;
  if (caller?.kind !== 'session') throw new Error('a dashboard route ran without a session');
  return caller.user;
}

export const dashboardApiRoutes: FastifyPluginAsyncTypebox<{ deps: ApiDeps }> = async (app, { deps }) => {
  const { sessions } = deps.dashboard!;
  const isOperator = (user: DashboardUser) => deps.config.DASHBOARD_OPERATORS.map((e) => e.toLowerCase()).includes(user.email);

  app.get('/dashboard/api/session', { config: session, schema: { hide } }, async (request) => {
    const user = userOf(request);
    const orgIds = [...user.organizationIds].sort();
    const organizations = [];
    for (const id of orgIds) {
      const org = await getOrganization(deps.db, id);
      // A claim may name an organization that does not exist (yet): it is left out.
      if (!org) continue;
      const environments = await listEnvironments(deps.db, id);
      organizations.push({
        id,
        name: org.name,
        environments: environments.map((e) => ({ id: e.id, name: e.name, createdAt: e.created_at.toISOString() })),
      });
    }
    return {
      body: {
        user: { email: user.email, name: user.name, subject: user.subject },
        organizations,
        csrfToken: sessions.csrfToken(user),
        operator: isOperator(user),
      },
    };
  });

  // API keys: the API has no key routes by design (the spec: keys are managed in the dashboard).
  // The API key operations limit (20 per hour per organization) counts what changes keys, creating
  // and revoking; listing them is an ordinary read (a page that shows keys would lock itself out).
  const keys = { config: { ...session, rateLimit: 'api-keys' as const } };
  app.get(
    '/dashboard/api/:orgID/keys',
    { config: session, schema: { hide, params: OrgParams, response: { 200: Envelope(Type.Object({ keys: Type.Array(KeySchema) })) } } },
    async (request) => {
      // System keys are the operators' (`kino admin key create --type system`): not shown, not revocable here.
      const listed = (await listApiKeys(deps.db, accessOf(request).orgId)).filter((key) => key.type !== 'system');
      return { body: { keys: listed.map(presentKey) } };
    },
  );

  app.post(
    '/dashboard/api/:orgID/keys',
    {
      ...keys,
      schema: {
        hide,
        params: OrgParams,
        body: Type.Object(
          { type: StringEnum(['environment', 'full']), envId: Type.Optional(Id), live: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 201: Envelope(Type.Intersect([KeySchema, Type.Object({ apiKey: Type.String() })])) },
      },
    },
    async (request, reply) => {
      const { orgId } = accessOf(request);
      const { type, envId, live = false } = request.body;
      if (type === 'environment' && !envId) throw new BadRequestError('env_required', 'An environment key needs envId.');
      if (type === 'full' && envId) throw new BadRequestError('env_not_allowed', 'A full-access key reaches every environment: leave envId out.');
      if (envId) {
        const environment = await getEnvironment(deps.db, envId);
        if (!environment || environment.org_id !== orgId) {
          throw new NotFoundError('environment_not_found', `Environment ${envId} does not exist in organization ${orgId}.`);
        }
      }
      const { apiKey, record } = await createApiKey(deps.db, { orgId, envId, type, live });
      request.log.info({ keyId: record.id, orgId, by: userOf(request).email }, 'API key created in the dashboard');
      // The only time the key exists in clear: the page shows it once and keeps it nowhere.
      return reply.code(201).send({ body: { ...presentKey(record), apiKey } });
    },
  );

  app.delete(
    '/dashboard/api/:orgID/keys/:keyID',
    { ...keys, schema: { hide, params: Type.Object({ orgID: Id, keyID: Id }), response: { 200: Envelope(KeySchema) } } },
    async (request) => {
      const { orgId } = accessOf(request);
      const key = await getApiKey(deps.db, request.params.keyID);
      if (!key || key.org_id !== orgId || key.type === 'system') throw new NotFoundError('key_not_found', `API key ${request.params.keyID} does not exist.`);
      const revoked = (await revokeApiKey(deps.db, key.id)) ?? key;
      request.log.info({ keyId: key.id, orgId, by: userOf(request).email }, 'API key revoked in the dashboard');
      return { body: presentKey(revoked) };
    },
  );

  // Environments: the API lists and changes them (GET /v1/api/{orgID}/environments, PATCH .../{envID}) but has no way to create one.
  app.post(
    '/dashboard/api/:orgID/environments',
    {
      config: session,
      schema: {
        hide,
        params: OrgParams,
        body: Type.Object({ name: Text({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
        response: { 201: Envelope(EnvironmentSchema) },
      },
    },
    async (request, reply) => {
      const name = request.body.name.trim();
      if (!name) throw new BadRequestError('invalid_name', 'An environment needs a name.');
      const environment = await createEnvironment(deps.db, { orgId: accessOf(request).orgId, name });
      return reply.code(201).send({ body: presentEnvironment(environment) });
    },
  );

  // The farm (operators): the same code as the operators' interface, reached with an operator's
  // session instead of OPERATOR_TOKEN (the token never reaches a browser).
  const checkOperator = (request: FastifyRequest) => {
    if (!isOperator(userOf(request))) throw new ForbiddenError('The farm is for operators (DASHBOARD_OPERATORS).');
  };
  app.get(
    '/dashboard/api/farm/nodes',
    { config: session, schema: { hide, response: { 200: Envelope(Type.Object({ nodes: Type.Array(NodeSchema) })) } } },
    async (request) => {
      checkOperator(request);
      return { body: { nodes: await listFarmNodes(deps.db) } };
    },
  );
  for (const [verb, draining] of [['drain', true], ['undrain', false]] as const) {
    app.post(
      `/dashboard/api/farm/nodes/:nodeID/${verb}`,
      { config: session, schema: { hide, params: Type.Object({ nodeID: Id }), response: { 200: Envelope(NodeSchema) } } },
      async (request) => {
        checkOperator(request);
        return { body: await drainNode(deps.db, request.params.nodeID, draining) };
      },
    );
  }
};
