// One video's segments per rendition height (deleted videos keep theirs).
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getVideo, listRenditions } from '@kino/database/repositories';
import type { RouteOptions } from '../../deps.ts';
import { accessOf, assertEnvironmentReach } from '../../plugins/access.ts';
import { NotFoundError } from '../../http/errors.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { VideoParams } from '../../schemas/videos.ts';
import { exampleVideoResolutions, ResolutionEntrySchema, ResolutionSummarySchema } from '../../schemas/analytics.ts';
import { checkOrder, dateCodes, DateRangeQuery, dateOf, day, read, storeOf, timestamp } from './common.ts';

export const videoResolutionRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.get(
    '/:orgID/videos/:publicID/analytics/resolution',
    {
      config: { rateLimit: 'analytics', validationCodes: dateCodes },
      schema: {
        tags: ['analytics'],
        summary: "One video's segments per rendition height (deleted videos keep theirs; all time without dates)",
        operationId: 'getVideoResolutions',
        description:
          'A summary of how the video was watched (segments, days, the most popular height) and one entry per rendition height. ' +
          'Errors: 400 invalid_date, invalid_date_range, date_range_too_long; 404 video_not_found; 503 when analytics are down.',
        params: VideoParams,
        querystring: DateRangeQuery,
        response: {
          200: Envelope(
            Type.Object({ summary: ResolutionSummarySchema, resolutions: Type.Array(ResolutionEntrySchema) }),
            exampleVideoResolutions,
          ),
          ...errorResponses(400, 404, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const { publicID } = request.params;
      const query = request.query;
      const start = dateOf(query.startDate);
      const end = dateOf(query.endDate);
      checkOrder(start, end, query);
      // Deleted videos included: their analytics are kept.
      const video = await getVideo(deps.db, publicID);
      if (!video || video.org_id !== access.orgId)
        throw new NotFoundError('video_not_found', `Video ${publicID} does not exist.`);
      assertEnvironmentReach(access, video.env_id);
      const scope = { orgId: access.orgId, videoId: video.id, from: start && day(start), to: end && day(end) };
      const [renditions, { heights, totals }] = await Promise.all([
        listRenditions(deps.db, video.id),
        read(request, () => storeOf(deps).videoSegments(scope)),
      ]);
      const naming = { vidId: video.id, vidPublicId: video.id, vidName: video.name, vidNameValid: true };
      // Most segments wins; on a tie the taller height (heights come tallest first).
      const popular = heights.reduce<(typeof heights)[number] | undefined>(
        (best, h) => (!best || h.segments > best.segments ? h : best),
        undefined,
      );
      return {
        body: {
          summary: {
            ...naming,
            vidLengthSeconds: video.duration_seconds ?? 0,
            availableResolutions: renditions.length,
            totalSegmentsServed: totals?.segments ?? 0,
            totalDaysServed: totals?.days ?? 0,
            firstServed: totals ? timestamp(totals.firstServed) : '',
            firstServedValid: Boolean(totals),
            lastServed: totals ? timestamp(totals.lastServed) : '',
            lastServedValid: Boolean(totals),
            mostPopularResolution: popular?.height ?? 0,
            mostPopularResolutionValid: Boolean(popular),
          },
          resolutions: heights.map((h) => ({
            ...naming,
            resolutionHeight: h.height,
            timesServed: h.segments,
            firstServed: timestamp(h.firstServed),
            firstServedValid: true,
            lastServed: timestamp(h.lastServed),
            lastServedValid: true,
            daysServed: h.days,
          })),
        },
      };
    },
  );
};
