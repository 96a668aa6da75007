// `GET .../videos/{publicID}/details`: everything about one video.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listCaptionTracks, listRenditions } from '@kino/database/repositories';
import { detailsOf } from '@kino/presenters';
import type { RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { NotFoundError } from '../../http/errors.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { exampleVideoDetails, VideoDetailsSchema, VideoParams } from '../../schemas/videos.ts';
import { segmentsServedFor } from '../../videos/served-segments.ts';
import { videoInReach } from '../../videos/video-in-reach.ts';

export const videoDetailsRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.get(
    '/:orgID/videos/:publicID/details',
    {
      config: { rateLimit: 'video' },
      schema: {
        tags: ['videos'],
        summary: 'Video details',
        operationId: 'getVideoDetails',
        description:
          'Everything about one video: its status (and why it failed), encoding options, its ladder, thumbnail, storyboard and ' +
          'caption URLs (with tokens for a private video), metadata and estimated views. Errors: 404 video_not_found.',
        params: VideoParams,
        response: { 200: Envelope(VideoDetailsSchema, exampleVideoDetails), ...errorResponses(404) },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const videoId = request.params.publicID;
      // The renditions and `served` need only the id, so they are read beside the video, not after
      // it: one database round trip instead of two in a row. When the video is not in reach (404,
      // 403) they are dropped unread; `served` is asked of the organization in the path, which is
      // the video's whenever anything is answered.
      const [video, renditions, served, captionTracks] = await Promise.all([
        videoInReach(deps, access, videoId),
        listRenditions(deps.db, videoId),
        segmentsServedFor(deps, request.log, [{ id: videoId, org_id: access.orgId }]),
        listCaptionTracks(deps.db, videoId),
      ]);
      if (video.deleted_at) throw new NotFoundError('video_not_found', `Video ${video.id} was deleted.`);
      return { body: await detailsOf(deps, video, { renditions, served, captionTracks }) };
    },
  );
};
