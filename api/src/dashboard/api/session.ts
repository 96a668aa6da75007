// GET /dashboard/api/session: who is signed in, their organizations and environments, the CSRF token.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getOrganization, listEnvironments } from '@kino/database/repositories';
import type { ApiDeps } from '../../deps.ts';
import { hide, isOperator, session, userOf } from './common.ts';

export const dashboardSessionRoutes: FastifyPluginAsyncTypebox<{ deps: ApiDeps }> = async (app, { deps }) => {
  const { sessions } = deps.dashboard!;
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
        operator: isOperator(deps, user),
      },
    };
  });
};
