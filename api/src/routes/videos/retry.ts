// `POST .../videos/{publicID}/retry`: a failed video processed again.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { markVideoFailed, resetFailedVideoForRetry } from '@kino/database/repositories';
import type { RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { ConflictError, NotFoundError, workflowServiceUnavailable } from '../../http/errors.ts';
import { Envelope, errorResponses, StringEnum } from '../../schemas/common.ts';
import { VideoParams } from '../../schemas/videos.ts';
import { videoInReach } from '../../videos/video-in-reach.ts';
import { restartProcessVideo, WorkflowExecutionAlreadyStartedError } from '../../videos/workflows.ts';

export const retryVideoRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/:orgID/videos/:publicID/retry',
    {
      config: { rateLimit: 'video' },
      schema: {
        tags: ['videos'],
        summary: 'Process a failed video again',
        operationId: 'retryVideo',
        description:
          'Only a failed video can be retried (409 not_failed otherwise); it goes back to transcoding with the same source and options.',
        params: VideoParams,
        response: {
          200: Envelope(Type.Object({ videoID: Type.String(), status: StringEnum(['transcoding'] as const) }), {
            videoID: 'vid_5Rt2LmQ9xZk3Wv7A',
            status: 'transcoding',
          }),
          ...errorResponses(404, 409, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const video = await videoInReach(deps, access, request.params.publicID);
      if (video.deleted_at) throw new NotFoundError('video_not_found', `Video ${video.id} was deleted.`);
      const notFailed = (status: string) =>
        new ConflictError('not_failed', `Only a failed video can be retried; video ${video.id} is ${status}.`);
      if (video.status !== 'failed') throw notFailed(video.status);
      const reset = await resetFailedVideoForRetry(deps.db, video.id);
      if (!reset) throw notFailed('no longer failed');
      try {
        await restartProcessVideo(deps.temporal, video.id);
      } catch (error) {
        // Put the video back as it was: failed, with its reason.
        await markVideoFailed(deps.db, video.id, reset.failureReason ?? 'processing failed');
        if (error instanceof WorkflowExecutionAlreadyStartedError) {
          throw new ConflictError(
            'processing_in_progress',
            'The previous processing run is still finishing; retry in a few seconds.',
          );
        }
        throw workflowServiceUnavailable(error, request.log, 'starting processing');
      }
      request.log.info({ videoId: video.id }, 'processing retried');
      return { body: { videoID: video.id, status: 'transcoding' as const } };
    },
  );
};
