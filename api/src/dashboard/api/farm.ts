// The farm (operators): the same code as the operators' interface, reached with an operator's
// session instead of OPERATOR_TOKEN (the token never reaches a browser).
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiDeps } from '../../deps.ts';
import { Envelope, Id } from '../../schemas/common.ts';
import { drainNode, listFarmNodes, NodeSchema, revokeNode, RevokedNodeSchema } from '../../routes/operators.ts';
import { checkOperator, hide, session } from './common.ts';

export const dashboardFarmRoutes: FastifyPluginAsyncTypebox<{ deps: ApiDeps }> = async (app, { deps }) => {
  app.get(
    '/dashboard/api/farm/nodes',
    { config: session, schema: { hide, response: { 200: Envelope(Type.Object({ nodes: Type.Array(NodeSchema) })) } } },
    async (request) => {
      checkOperator(deps, request);
      return { body: { nodes: await listFarmNodes(deps.db) } };
    },
  );
  for (const [verb, draining] of [
    ['drain', true],
    ['undrain', false],
  ] as const) {
    app.post(
      `/dashboard/api/farm/nodes/:nodeID/${verb}`,
      {
        config: session,
        schema: { hide, params: Type.Object({ nodeID: Id }), response: { 200: Envelope(NodeSchema) } },
      },
      async (request) => {
        checkOperator(deps, request);
        return { body: await drainNode(deps.db, request.params.nodeID, draining) };
      },
    );
  }
  app.post(
    '/dashboard/api/farm/nodes/:nodeID/revoke',
    {
      config: session,
      schema: { hide, params: Type.Object({ nodeID: Id }), response: { 200: Envelope(RevokedNodeSchema) } },
    },
    async (request) => {
      checkOperator(deps, request);
      return { body: await revokeNode(deps.db, request.params.nodeID) };
    },
  );
};
