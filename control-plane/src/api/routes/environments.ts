// GET /{orgID}/environments → `body.environments[]` of `{id, name, createdAt}` (docs/decisions/api.md#environments-and-the-organization-wide-list).
// An environment key sees only its own environment.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteOptions } from '../deps.ts';
import { listEnvironments } from '@kino/database/repositories';
import { accessOf, environmentScope } from '../plugins/access.ts';
import { Envelope, errorResponses, OrgParams } from '../schemas/common.ts';

const EnvironmentSchema = Type.Object({ id: Type.String(), name: Type.String(), createdAt: Type.String() });

export const environmentRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.get(
    '/:orgID/environments',
    {
      schema: {
        tags: ['environments'],
        summary: 'List the environments of an organization',
        operationId: 'listEnvironments',
        description:
          "Each environment (production, staging, ...) keeps its own videos, webhooks and keys; an environment key sees only its own. Errors: 404 organization_not_found.",
        params: OrgParams,
        response: {
          200: Envelope(Type.Object({ environments: Type.Array(EnvironmentSchema) }), {
            environments: [{ id: 'env_8HcPq4Ws0dYbN6eJ', name: 'production', createdAt: '2026-09-01T12:00:00.000Z' }],
          }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const only = environmentScope(access);
      const environments = (await listEnvironments(deps.db, access.orgId)).filter((env) => !only || env.id === only);
      return {
        body: {
          environments: environments.map((env) => ({ id: env.id, name: env.name, createdAt: env.created_at.toISOString() })),
        },
      };
    },
  );
};
