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
        params: OrgParams,
        response: { 200: Envelope(Type.Object({ environments: Type.Array(EnvironmentSchema) })), ...errorResponses(404) },
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
