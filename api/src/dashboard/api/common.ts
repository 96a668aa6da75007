// /dashboard/api/*: what the dashboard needs that the API deliberately lacks. Everything else the
// dashboard does through the ordinary API (/v1/api) with its session. Session-only routes
// (config.auth 'session'): the access hook has checked the session, the CSRF token and, for
// routes with an {orgID}, membership.
// A file per family: session.ts, keys.ts, environments.ts, farm.ts; this one holds what they share.
import type { FastifyRequest } from 'fastify';
import type { ApiDeps } from '../../deps.ts';
import { ForbiddenError } from '../../http/errors.ts';
import type { DashboardUser } from '../../sessions/sessions.ts';

/** The route config of a session-only route. */
export const session = { auth: 'session' as const };
/** None of these routes is in the OpenAPI document: they are the dashboard's, not the API's. */
export const hide = true;

/** The signed-in user (the access hook let only a session through). */
export function userOf(request: FastifyRequest): DashboardUser {
  const caller = request.caller;
  if (caller?.kind !== 'session') throw new Error('a dashboard route ran without a session');
  return caller.user;
}

/** Whether the user is one of the operators (DASHBOARD_OPERATORS). */
export function isOperator(deps: Pick<ApiDeps, 'config'>, user: DashboardUser): boolean {
  return deps.config.DASHBOARD_OPERATORS.map((e) => e.toLowerCase()).includes(user.email);
}

/** 403 unless the caller is an operator. */
export function checkOperator(deps: Pick<ApiDeps, 'config'>, request: FastifyRequest): void {
  if (!isOperator(deps, userOf(request))) throw new ForbiddenError('The farm is for operators (DASHBOARD_OPERATORS).');
}
