// The dashboard on the API's origin (docs/dashboard.md): its built files (dashboard/dist) at
// /dashboard/, sign-in at /dashboard/auth/*, its own JSON routes at /dashboard/api/*. Registered
// only when DASHBOARD_URL is set. Its pages get a Content-Security-Policy that allows the
// dashboard's own files and, for playback and uploads, the delivery host and object storage.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { ApiDeps } from '../deps.ts';
import { NotFoundError, ServiceUnavailableError } from '../http/errors.ts';
import { authRoutes } from './auth-routes.ts';
import { dashboardSessionRoutes } from './api/session.ts';
import { dashboardKeyRoutes } from './api/keys.ts';
import { dashboardEnvironmentRoutes } from './api/environments.ts';
import { dashboardFarmRoutes } from './api/farm.ts';
import { dashboardEventRoutes } from './api/events.ts';
import type { OidcClient } from '../sessions/oidc.ts';

/** `npm run build -w @kino/dashboard` writes it; the setup step of `npm run dev` and `npm test` runs that. */
export const dashboardDistDir = fileURLToPath(new URL('../../../dashboard/dist/', import.meta.url));

function originOf(url: string | undefined): string[] {
  return url ? [new URL(url).origin] : [];
}

export async function dashboardPlugin(
  app: FastifyInstance,
  { deps, oidc }: { deps: ApiDeps; oidc: OidcClient },
): Promise<void> {
  const { config } = deps;
  const dashboardUrl = config.DASHBOARD_URL!;
  const { sessions, cookies } = deps.dashboard!;
  const delivery = originOf(config.DELIVERY_URL);
  // Browser uploads go straight to storage through presigned URLs, signed for the public address.
  const storage = originOf(config.S3_PUBLIC_ENDPOINT ?? config.S3_ENDPOINT);

  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", ...delivery],
        fontSrc: ["'self'"],
        // hls.js feeds Media Source Extensions from blob: URLs and fetches playlists and segments from
        // delivery. It shows subtitles in <track> elements whose src is an empty 'data:,WEBVTT' (the
        // cues are added by script), so a page with caption tracks needs data: here.
        mediaSrc: ["'self'", 'blob:', 'data:', ...delivery],
        connectSrc: ["'self'", ...delivery, ...storage],
        // hls.js runs its demuxer in a worker made from a blob: URL.
        workerSrc: ["'self'", 'blob:'],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    // Cross-origin isolation headers would keep the player from delivery's segments.
    crossOriginEmbedderPolicy: false,
    // Same-site requests only: nothing of the dashboard is meant to be embedded elsewhere.
    crossOriginResourcePolicy: { policy: 'same-origin' },
    hsts: new URL(dashboardUrl).protocol === 'https:',
  });

  // Idle sessions are dropped now and then (any instance may; the delete is idempotent).
  const sweep = setInterval(() => {
    sessions.sweep().catch((error: unknown) => app.log.warn({ err: error }, 'dashboard session sweep failed'));
  }, 10 * 60_000);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  await app.register(authRoutes, { deps, oidc, dashboardUrl });
  await app.register(dashboardSessionRoutes, { deps });
  await app.register(dashboardKeyRoutes, { deps });
  await app.register(dashboardEnvironmentRoutes, { deps });
  await app.register(dashboardFarmRoutes, { deps });
  await app.register(dashboardEventRoutes, { deps });

  await app.register(fastifyStatic, {
    root: `${dashboardDistDir}assets`,
    prefix: '/dashboard/assets/',
    // File names carry a content hash: they never change.
    immutable: true,
    maxAge: '365d',
    index: false,
    decorateReply: false,
  });

  // The files around the app, copied from dashboard/public as they are: the favicon, and the
  // stylesheet of the pages the API serves without the dashboard's script (signed out, sign-in failed).
  const publicFiles = { 'favicon.svg': 'image/svg+xml', 'page.css': 'text/css; charset=utf-8' };
  for (const [name, type] of Object.entries(publicFiles)) {
    app.get(
      `/dashboard/${name}`,
      { config: { auth: 'none' as const }, schema: { hide: true } },
      async (_request, reply) =>
        reply
          .header('Cache-Control', 'public, max-age=3600')
          .type(type)
          .send(await readFile(`${dashboardDistDir}${name}`)),
    );
  }

  // Every page path answers index.html (the browser's router picks the page); without a live
  // session the browser goes to sign-in first.
  const pageHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!;
    if (/^\/dashboard\/(api|auth|assets)(\/|$)/.test(path)) throw new NotFoundError('not_found', `Nothing at ${path}.`);
    const sessionId = request.cookies[cookies.session.name];
    const user = sessionId ? await sessions.authenticate(sessionId) : undefined;
    if (!user) return reply.redirect(`/dashboard/auth/login?returnTo=${encodeURIComponent(request.url)}`);
    if (path === '/dashboard' || path === '/dashboard/') return reply.redirect('/dashboard/videos');
    let html: string;
    try {
      html = await readFile(`${dashboardDistDir}index.html`, 'utf8');
    } catch {
      throw new ServiceUnavailableError('The dashboard is not built: run `npm run build -w @kino/dashboard`.');
    }
    return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(html);
  };
  const page = { config: { auth: 'none' as const }, schema: { hide: true } };
  app.get('/dashboard', page, pageHandler);
  app.get('/dashboard/*', page, pageHandler);
}
