// `POST .../videos/ingest`: a video made of a file its workflow fetches from a URL.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { newId } from '@kino/infra';
import { objectKeys } from '@kino/proto/contract';
import { createVideo, deleteVideoRow } from '@kino/database/repositories';
import type { RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { ValidationError, workflowServiceUnavailable } from '../../http/errors.ts';
import { EnvParams, Envelope, errorResponses, Text, WEBHOOK_URL_PATTERN, withExamples } from '../../schemas/common.ts';
import { parametersOfRequest } from '../../videos/request-parameters.ts';
import { sendVideoEvent } from '../../videos/video-events.ts';
import { startProcessVideo } from '../../videos/workflows.ts';
import { encodingParameterCodes, processOptions } from './process-options.ts';

/** The body of `POST .../videos/ingest`: the source's URL and every option of `videos/process`. */
export const IngestBody = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    // The webhook URL's pattern: http(s), a host name or dotted IPv4 address, no credentials.
    pattern: WEBHOOK_URL_PATTERN,
    description:
      "An http or https URL the source is fetched from, inside the video's workflow (redirects followed). " +
      'Loopback, private, link-local and metadata addresses are refused (the video fails with source_address_refused).',
  }),
  ...processOptions(),
  videoName: Type.Optional(
    Text({ minLength: 1, maxLength: 255, description: "Default: the URL's last path segment." }),
  ),
});

const ingestValidationCodes: Record<string, string> = {
  'body.url': 'invalid_url',
  'body.videoQuality': 'invalid_quality_preset',
  ...encodingParameterCodes,
};

/** An ingested video's default name: the URL's last path segment, else its host. */
export function nameFromUrl(url: URL): string {
  const segment = url.pathname.split('/').filter(Boolean).pop();
  let name = url.hostname;
  if (segment) {
    try {
      name = decodeURIComponent(segment);
    } catch {
      name = segment;
    }
  }
  return name.slice(0, 255);
}

export const ingestVideoRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/:orgID/environments/:envID/videos/ingest',
    {
      config: { rateLimit: 'video', validationCodes: ingestValidationCodes },
      schema: {
        tags: ['videos'],
        summary: 'Make a video from a URL',
        operationId: 'ingestVideo',
        description:
          'The video is `transcoding` at once; its workflow fetches the URL into storage (resuming with Range after a dropped ' +
          'connection), then processes it as an upload. A source that answers an HTTP error, is over 5 GB, opens no accepted ' +
          'container or sits at a refused address ends `failed`, with the reason (source_http_error, source_too_large, ' +
          'source_unsupported_format, source_address_refused) in the details.',
        params: EnvParams,
        body: withExamples(IngestBody, {
          url: 'https://files.example.com/talks/keynote.mp4',
          videoQuality: 'high',
          allowPublicAccess: false,
        }),
        response: {
          200: Envelope(Type.Object({ videoID: Type.String() }), { videoID: 'vid_5Rt2LmQ9xZk3Wv7A' }),
          ...errorResponses(400, 404, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const environment = access.environment!;
      const body = request.body;
      const url = URL.parse(body.url);
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
        const message = 'url must be an absolute http(s) URL without credentials';
        throw new ValidationError('invalid_url', message, [{ message, location: 'body.url', value: body.url }]);
      }
      const parameters = await parametersOfRequest(deps, { orgId: access.orgId, envId: environment.id }, body);
      const videoId = newId('vid');
      await createVideo(deps.db, {
        id: videoId,
        orgId: access.orgId,
        envId: environment.id,
        name: body.videoName ?? nameFromUrl(url),
        storagePath: objectKeys.ingestSource(access.orgId, environment.id, videoId),
        sourceUrl: url.href,
        videoQuality: body.videoQuality,
        allowPublicAccess: body.allowPublicAccess,
        parameters,
      });
      try {
        await startProcessVideo(deps.temporal, videoId);
      } catch (error) {
        await deleteVideoRow(deps.db, videoId);
        throw workflowServiceUnavailable(error, request.log, 'starting processing');
      }
      request.log.info({ videoId, url: url.href }, 'ingest started');
      await sendVideoEvent(deps, request.log, { event: 'video.created', videoId });
      return { body: { videoID: videoId } };
    },
  );
};
