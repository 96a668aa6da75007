// /dashboard/auth/*: sign-in over OpenID Connect (authorization code with PKCE), the provider's
// callback, sign-out. The sign-in in progress rides in a signed, httpOnly cookie for 10 minutes.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiDeps } from '../deps.ts';
import type { OidcClient, SignInTransaction } from '../sessions/oidc.ts';
import { SignInRefusedError } from '../sessions/sessions.ts';

export interface AuthRouteOptions {
  deps: ApiDeps;
  oidc: OidcClient;
  dashboardUrl: string;
}

/** Only a path inside the dashboard: `returnTo` never sends the browser elsewhere (no open redirect). */
export function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && /^\/dashboard(\/[^\s\\]*)?$/.test(value) && !value.startsWith('//')
    ? value
    : '/dashboard/';
}

export const authRoutes: FastifyPluginAsync<AuthRouteOptions> = async (app, { deps, oidc, dashboardUrl }) => {
  const { sessions, cookies } = deps.dashboard!;
  const open = { config: { auth: 'none' as const }, schema: { hide: true } };

  app.get('/dashboard/auth/login', open, async (request, reply) => {
    const returnTo = safeReturnTo((request.query as { returnTo?: unknown }).returnTo);
    let started;
    try {
      started = await oidc.startSignIn(returnTo);
    } catch (error) {
      request.log.error({ err: error }, 'the identity provider is unreachable');
      return signInProblem(reply, 503, 'The identity provider cannot be reached right now. Try again shortly.');
    }
    reply.setCookie(cookies.signIn.name, JSON.stringify(started.transaction), cookies.signIn.options);
    return reply.redirect(started.url.toString());
  });

  app.get('/dashboard/auth/callback', open, async (request, reply) => {
    const transaction = readTransaction(request, cookies.signIn.name);
    reply.clearCookie(cookies.signIn.name, cookies.signIn.options);
    const query = request.query as { error?: string; error_description?: string };
    if (query.error)
      return signInProblem(
        reply,
        400,
        `The identity provider refused the sign-in: ${query.error_description ?? query.error}.`,
      );
    if (!transaction)
      return signInProblem(reply, 400, 'This sign-in expired or was started in another browser. Sign in again.');
    const callbackUrl = new URL(request.url, new URL(dashboardUrl).origin);
    let sessionId: string;
    try {
      sessionId = await sessions.create(await oidc.finishSignIn(callbackUrl, transaction));
    } catch (error) {
      if (error instanceof SignInRefusedError) return signInProblem(reply, 403, error.message);
      request.log.warn({ err: error }, 'sign-in callback failed');
      return signInProblem(reply, 400, 'The sign-in could not be completed. Sign in again.');
    }
    reply.setCookie(cookies.session.name, sessionId, cookies.session.options);
    return reply.redirect(transaction.returnTo);
  });

  // A session route: the CSRF token is required, so another site cannot sign a user out.
  app.post(
    '/dashboard/auth/logout',
    { config: { auth: 'session' }, schema: { hide: true } },
    async (request, reply) => {
      const sessionId = request.cookies[cookies.session.name]!;
      const idToken = await sessions.end(sessionId);
      reply.clearCookie(cookies.session.name, cookies.session.options);
      return { body: { redirectTo: await oidc.endSessionUrl(idToken) } };
    },
  );

  // Where the provider's sign-out comes back to.
  app.get('/dashboard/auth/signed-out', open, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .send(page('Signed out', '<p>You are signed out of Kino.</p><p><a href="/dashboard/auth/login">Sign in</a></p>')),
  );
};

function readTransaction(request: FastifyRequest, name: string): SignInTransaction | undefined {
  const raw = request.cookies[name];
  if (!raw) return undefined;
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || unsigned.value === null) return undefined;
  try {
    return JSON.parse(unsigned.value) as SignInTransaction;
  } catch {
    return undefined;
  }
}

function signInProblem(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(
      page(
        'Sign-in failed',
        `<p role="alert">${escapeHtml(message)}</p><p><a href="/dashboard/auth/login">Sign in again</a></p>`,
      ),
    );
}

/** A plain page (no script, no inline style: the Content-Security-Policy allows neither). */
function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Kino</title><link rel="icon" type="image/svg+xml" href="/dashboard/favicon.svg"><link rel="stylesheet" href="/dashboard/page.css"></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
