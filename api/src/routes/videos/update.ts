// `PATCH .../videos/{videoID}`: a video's name, description, access or metadata.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listCaptionTracks, listRenditions, updateVideo } from '@kino/database/repositories';
import { detailsOf } from '@kino/presenters';
import type { RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { NotFoundError } from '../../http/errors.ts';
import { Envelope, errorResponses, Text, withExamples } from '../../schemas/common.ts';
import { exampleVideoDetails, VideoDetailsSchema, VideoIdParams } from '../../schemas/videos.ts';
import { segmentsServedFor } from '../../videos/served-segments.ts';
import { sendVideoEvent } from '../../videos/video-events.ts';
import { liveVideoInReach } from '../../videos/video-in-reach.ts';

/** A metadata field of PATCH: a string sets it, null clears it, absence leaves it. */
const MetadataField = (maxLength: number, description: string) =>
  Type.Optional(Type.Union([Text({ minLength: 1, maxLength, description }), Type.Null()]));

/** The body of `PATCH .../videos/{publicID}`: at least one field; what is absent stays as it is. */
export const UpdateBody = Type.Object(
  {
    videoName: Type.Optional(Text({ minLength: 1, maxLength: 255 })),
    description: Type.Optional(
      Type.Union([Text({ maxLength: 5000 }), Type.Null()], { description: 'Null or "" clears it.' }),
    ),
    allowPublicAccess: Type.Optional(
      Type.Boolean({
        description:
          'false: delivery asks for a token from the next metadata refresh (within DELIVERY_METADATA_TTL_MS, 2 s by default).',
      }),
    ),
    metadata: Type.Optional(
      Type.Object(
        {
          externalId: MetadataField(128, "The application's own id for the video (a list filter)."),
          creatorId: MetadataField(128, "Who made it, in the application's terms."),
          passthrough: MetadataField(255, 'Stored and returned as given.'),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { minProperties: 1, additionalProperties: false },
);

export const updateVideoRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.patch(
    // `videoID`, as DELETE names it: one path, so one parameter name (OpenAPI and the router need it).
    '/:orgID/videos/:videoID',
    {
      config: { rateLimit: 'video' },
      schema: {
        tags: ['videos'],
        summary: 'Change a video: its name, description, access or metadata',
        operationId: 'updateVideo',
        description:
          'Any of the fields, at least one; an absent field stays as it is, a null one (description, a metadata field) is cleared. ' +
          'Answers the details as they are after the change. A video made private stops playing without a token within the ' +
          "delivery metadata cache's bound (DELIVERY_METADATA_TTL_MS, 2 s by default).",
        params: VideoIdParams,
        body: withExamples(UpdateBody, {
          videoName: 'Product launch keynote',
          description: 'The keynote of the November launch.',
          metadata: { externalId: 'talk-2026-042', creatorId: 'user_981' },
        }),
        response: { 200: Envelope(VideoDetailsSchema, exampleVideoDetails), ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const video = await liveVideoInReach(deps, access, request.params.videoID);
      const { videoName, description, allowPublicAccess, metadata } = request.body;
      const updated = await updateVideo(deps.db, video.id, {
        name: videoName,
        description: description === '' ? null : description,
        allowPublicAccess,
        externalId: metadata?.externalId,
        creatorId: metadata?.creatorId,
        passthrough: metadata?.passthrough,
      });
      // Deleted between the read and the write.
      if (!updated) throw new NotFoundError('video_not_found', `Video ${video.id} does not exist.`);
      request.log.info({ videoId: video.id, fields: Object.keys(request.body) }, 'video updated');
      const [renditions, served, captionTracks] = await Promise.all([
        listRenditions(deps.db, video.id),
        segmentsServedFor(deps, request.log, [updated]),
        listCaptionTracks(deps.db, video.id),
      ]);
      const details = await detailsOf(deps, updated, { renditions, served, captionTracks });
      await sendVideoEvent(deps, request.log, { event: 'video.updated', videoId: video.id, details });
      return { body: details };
    },
  );
};
