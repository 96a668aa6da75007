// `DELETE .../videos/{videoID}`: a soft delete, its files removed by a clean-up workflow.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { deleteReasons } from '@kino/proto/contract';
import { listCaptionTracks, listRenditions, markVideoDeleted, undoVideoDeleted } from '@kino/database/repositories';
import { detailsOf } from '@kino/presenters';
import type { RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { BadRequestError, ConflictError, workflowServiceUnavailable } from '../../http/errors.ts';
import { Envelope, errorResponses, StringEnum, withExamples } from '../../schemas/common.ts';
import { VideoIdParams } from '../../schemas/videos.ts';
import { segmentsServedFor } from '../../videos/served-segments.ts';
import { sendVideoEvent } from '../../videos/video-events.ts';
import { videoInReach } from '../../videos/video-in-reach.ts';
import { startDeleteVideoContent } from '../../videos/workflows.ts';

const DeleteBody = Type.Object({ reason: Type.Optional(StringEnum(deleteReasons)) });

export const deleteVideoRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.delete(
    '/:orgID/videos/:videoID',
    {
      config: { rateLimit: 'video' },
      schema: {
        tags: ['videos'],
        summary: 'Delete a video',
        operationId: 'deleteVideo',
        description:
          'Soft delete: hidden at once; its files are removed within 24 hours; analytics are kept. ' +
          'A video still transcoding cannot be deleted until processing ends (409 processing_in_progress).',
        params: VideoIdParams,
        body: withExamples(DeleteBody, { reason: 'user_request' }),
        response: {
          200: Envelope(
            Type.Object({ status: StringEnum(['deleted'] as const), deletedAt: Type.String(), message: Type.String() }),
            {
              status: 'deleted',
              deletedAt: '2026-11-26T10:00:00.000Z',
              message: 'The video is deleted. Its files are removed within 24 hours; its analytics are kept.',
            },
          ),
          ...errorResponses(400, 404, 409, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const video = await videoInReach(deps, access, request.params.videoID);
      if (video.deleted_at) throw new BadRequestError('already_deleted', `Video ${video.id} is already deleted.`);
      if (video.status === 'transcoding') {
        throw new ConflictError(
          'processing_in_progress',
          `Video ${video.id} is still transcoding; delete it once it is ready or failed.`,
        );
      }
      // The event's data: the details as they were, read before the video is gone from every read.
      const [renditions, served, captionTracks] = await Promise.all([
        listRenditions(deps.db, video.id),
        segmentsServedFor(deps, request.log, [video]),
        listCaptionTracks(deps.db, video.id),
      ]);
      const details = await detailsOf(deps, video, { renditions, served, captionTracks });
      const deleted = await markVideoDeleted(deps.db, video.id, request.body?.reason ?? null);
      if (!deleted?.deleted_at) throw new BadRequestError('already_deleted', `Video ${video.id} is already deleted.`);
      try {
        await startDeleteVideoContent(deps.temporal, video.id);
      } catch (error) {
        // Without the clean-up workflow its files would stay forever: do not report a deletion.
        await undoVideoDeleted(deps.db, video.id);
        throw workflowServiceUnavailable(error, request.log, 'starting the clean-up');
      }
      request.log.info({ videoId: video.id, reason: request.body?.reason }, 'video deleted');
      await sendVideoEvent(deps, request.log, { event: 'video.deleted', videoId: video.id, details });
      return {
        body: {
          status: 'deleted' as const,
          deletedAt: deleted.deleted_at.toISOString(),
          message: 'The video is deleted. Its files are removed within 24 hours; its analytics are kept.',
        },
      };
    },
  );
};
