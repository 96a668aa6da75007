// Environments: the API lists and changes them (GET /v1/api/{orgID}/environments, PATCH .../{envID}) but has no way to create one.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createEnvironment } from '@kino/database/repositories';
import type { ApiDeps } from '../../deps.ts';
import { BadRequestError } from '../../http/errors.ts';
import { Envelope, OrgParams, Text } from '../../schemas/common.ts';
import { accessOf } from '../../plugins/access.ts';
import { EnvironmentSchema, presentEnvironment } from '../../routes/environments.ts';
import { hide, session } from './common.ts';

export const dashboardEnvironmentRoutes: FastifyPluginAsyncTypebox<{ deps: ApiDeps }> = async (app, { deps }) => {
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
};
