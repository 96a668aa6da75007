// API keys: the API has no key routes by design (the spec: keys are managed in the dashboard).
// The API key operations limit (20 per hour per organization) counts what changes keys, creating
// and revoking; listing them is an ordinary read (a page that shows keys would lock itself out).
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiKey } from '@kino/database';
import { createApiKey, getApiKey, getEnvironment, listApiKeys, revokeApiKey } from '@kino/database/repositories';
import type { ApiDeps } from '../../deps.ts';
import { BadRequestError, NotFoundError } from '../../http/errors.ts';
import { Envelope, Id, OrgParams, StringEnum } from '../../schemas/common.ts';
import { accessOf } from '../../plugins/access.ts';
import { hide, session, userOf } from './common.ts';

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

export const dashboardKeyRoutes: FastifyPluginAsyncTypebox<{ deps: ApiDeps }> = async (app, { deps }) => {
  const keys = { config: { ...session, rateLimit: 'api-keys' as const } };
  app.get(
    '/dashboard/api/:orgID/keys',
    {
      config: session,
      schema: { hide, params: OrgParams, response: { 200: Envelope(Type.Object({ keys: Type.Array(KeySchema) })) } },
    },
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
      if (type === 'environment' && !envId)
        throw new BadRequestError('env_required', 'An environment key needs envId.');
      if (type === 'full' && envId)
        throw new BadRequestError('env_not_allowed', 'A full-access key reaches every environment: leave envId out.');
      if (envId) {
        const environment = await getEnvironment(deps.db, envId);
        if (!environment || environment.org_id !== orgId) {
          throw new NotFoundError(
            'environment_not_found',
            `Environment ${envId} does not exist in organization ${orgId}.`,
          );
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
    {
      ...keys,
      schema: { hide, params: Type.Object({ orgID: Id, keyID: Id }), response: { 200: Envelope(KeySchema) } },
    },
    async (request) => {
      const { orgId } = accessOf(request);
      const key = await getApiKey(deps.db, request.params.keyID);
      if (!key || key.org_id !== orgId || key.type === 'system')
        throw new NotFoundError('key_not_found', `API key ${request.params.keyID} does not exist.`);
      const revoked = (await revokeApiKey(deps.db, key.id)) ?? key;
      request.log.info({ keyId: key.id, orgId, by: userOf(request).email }, 'API key revoked in the dashboard');
      return { body: presentKey(revoked) };
    },
  );
};
