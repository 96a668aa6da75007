// Custom thumbnails (docs/decisions/encoding.md#custom-thumbnails): POST /{orgID}/videos/{publicID}/thumbnails
// makes one frame of the source at `timestamp` on an encode node (no encode slot taken), stores it,
// and answers its URL on the delivery host, which serves it in any size; `setAsDefault` makes it
// the video's thumbnailUrl. Counted against the thumbnail generation limit (50 per hour).
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { objectKeys } from '@kino/proto/contract';
import type { RouteOptions } from '../deps.ts';
import { getVideo, setDefaultThumbnail } from '@kino/database/repositories';
import { accessOf, assertEnvironmentReach } from '../plugins/access.ts';
import { ConflictError, NotFoundError, ServiceUnavailableError, ValidationError } from '../http/errors.ts';
import { Envelope, errorResponses, withExamples } from '../schemas/common.ts';
import { VideoParams } from '../schemas/videos.ts';
import { thumbnailUrlsFor } from '@kino/presenters';
import { makeCustomThumbnail } from '../videos/workflows.ts';

const Body = Type.Object({
  timestamp: Type.Number({ minimum: 0, description: 'Seconds into the video.' }),
  setAsDefault: Type.Optional(Type.Boolean({ default: false, description: "Make it the video's thumbnailUrl." })),
});

export const thumbnailRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/:orgID/videos/:publicID/thumbnails',
    {
      config: { rateLimit: 'thumbnails', validationCodes: { 'body.timestamp': 'invalid_timestamp' } },
      schema: {
        tags: ['videos'],
        summary: 'Create a thumbnail at a timestamp',
        operationId: 'createThumbnail',
        description:
          'The URL serves any size: replace <w>x<h> in it. 409 video_not_ready until the video is ready; 409 video_has_no_picture for an audio-only video.',
        params: VideoParams,
        body: withExamples(Body, { timestamp: 42.5, setAsDefault: true }),
        response: {
          200: Envelope(Type.Object({ url: Type.String(), timestamp: Type.Number() }), {
            url: 'https://media.example.com/t/vid_5Rt2LmQ9xZk3Wv7A/c42500/1280x720.jpg',
            timestamp: 42.5,
          }),
          ...errorResponses(400, 404, 409, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const video = await getVideo(deps.db, request.params.publicID);
      if (!video || video.org_id !== access.orgId || video.deleted_at) {
        throw new NotFoundError('video_not_found', `Video ${request.params.publicID} does not exist.`);
      }
      assertEnvironmentReach(access, video.env_id);
      if (video.status !== 'ready')
        throw new ConflictError(
          'video_not_ready',
          `Video ${video.id} is ${video.status}: thumbnails are made from a ready video.`,
        );
      // An audio-only video (a source with no picture) was recorded with no picture size.
      if (!(video.source_width && video.source_height)) {
        throw new ConflictError(
          'video_has_no_picture',
          `Video ${video.id} is audio only: there is no picture to take a thumbnail from.`,
        );
      }
      const { timestamp, setAsDefault } = request.body;
      const duration = video.duration_seconds ?? 0;
      if (timestamp >= duration) {
        const message = `timestamp must be within the video: 0 to below ${duration} seconds`;
        throw new ValidationError('invalid_timestamp', message, [
          { message, location: 'body.timestamp', value: timestamp },
        ]);
      }
      // One object per millisecond of the video: asking twice for one frame reuses its name.
      const thumbnailId = `c${Math.round(timestamp * 1000)}`;
      let key: string;
      try {
        key = await makeCustomThumbnail(
          deps.temporal,
          {
            videoId: video.id,
            storagePath: video.storage_path,
            timestampSeconds: timestamp,
            name: objectKeys.customThumbnailName(thumbnailId),
            // An HDR source's frame is tone-mapped; an SDR source's input is as it was.
            ...(video.source_dynamic_range && video.source_dynamic_range !== 'sdr'
              ? { dynamicRange: video.source_dynamic_range }
              : {}),
          },
          `${thumbnailId}-${request.id}`,
        );
      } catch (error) {
        request.log.error({ err: error, videoId: video.id }, 'custom thumbnail failed');
        throw new ServiceUnavailableError(
          'The thumbnail could not be made now (no encode node answered in time); try again shortly.',
        );
      }
      if (setAsDefault && !(await setDefaultThumbnail(deps.db, video.id, key))) {
        throw new ConflictError('video_not_ready', `Video ${video.id} changed state while its thumbnail was made.`);
      }
      // The custom image's own URL (a private video's carries an image token, as thumbnailUrl does).
      const base = (await thumbnailUrlsFor(deps, [{ ...video, thumbnail_key: key }])).get(video.id)!;
      const url = base.replace(`/t/${video.id}/`, `/t/${video.id}/${thumbnailId}/`);
      request.log.info({ videoId: video.id, timestamp, setAsDefault }, 'custom thumbnail made');
      return { body: { url, timestamp } };
    },
  );
};
