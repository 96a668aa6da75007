// The dashboard's live updates: server-sent events of the organization's videos (every environment:
// a video page may show another environment's video than the one picked), so an open page
// learns that a video changed without asking again and again (docs/decisions/dashboard.md#live-updates).
// Each message is a webhook event without its `data` (`event: video`, data `{event, videoId,
// timestamp, orgId, envId}`); the page reads what changed with the ordinary API. Opening the stream
// is one request against the member's budget; the messages are free.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiDeps } from '../../deps.ts';
import { ServiceUnavailableError } from '../../http/errors.ts';
import { accessOf } from '../../plugins/access.ts';
import { OrgParams } from '../../schemas/common.ts';
import { VideoEventStreams, type VideoEventStream } from '../video-event-streams.ts';
import { hide, session } from './common.ts';

/** A comment line this often keeps proxies and load balancers from closing a quiet stream. */
const KEEP_ALIVE_MS = 25_000;
/** How long a browser waits before it reconnects a stream that ended (the SSE `retry` field). */
const RECONNECT_MS = 5_000;

export const dashboardEventRoutes: FastifyPluginAsyncTypebox<{ deps: ApiDeps }> = async (app, { deps }) => {
  const streams = new VideoEventStreams(deps.config.DATABASE_URL, app.log);
  // Before the server waits for its connections to end: an open stream never ends by itself.
  app.addHook('preClose', async () => streams.close());

  app.get(
    '/dashboard/api/:orgID/events',
    { config: session, schema: { hide, params: OrgParams } },
    async (request, reply) => {
      const { orgId } = accessOf(request);
      const raw = reply.raw;
      const stream: VideoEventStream = {
        orgId,
        send: (announcement) => raw.write(`event: video\ndata: ${JSON.stringify(announcement)}\n\n`),
        end: () => raw.end(),
      };
      try {
        await streams.add(stream);
      } catch (error) {
        request.log.error({ err: error }, 'cannot listen for video events');
        throw new ServiceUnavailableError('Live updates are unavailable right now (database unavailable).');
      }
      reply.hijack();
      // The headers set so far (request id, rate limits, security headers) go out with the stream's own.
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) raw.setHeader(name, value);
      }
      raw.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        // nginx and its kind would hold the messages back in a buffer.
        'X-Accel-Buffering': 'no',
      });
      raw.write(`retry: ${RECONNECT_MS}\n: connected\n\n`);
      const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
      raw.on('close', () => {
        clearInterval(keepAlive);
        streams.remove(stream);
      });
    },
  );
};
