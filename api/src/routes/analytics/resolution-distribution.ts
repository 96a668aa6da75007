// Segments served per rendition height across videos, for the organization and under /environments/{envID}.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RollupScope } from '@kino/analytics';
import type { RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { DistributionEntrySchema, exampleDistributionEntry } from '../../schemas/analytics.ts';
import {
  checkOrder,
  dateCodes,
  DateRangeQuery,
  dateOf,
  day,
  forOrganizationAndEnvironment,
  read,
  scopeEnvironment,
  storeOf,
  timestamp,
} from './common.ts';

export const resolutionDistributionRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  forOrganizationAndEnvironment('resolution-distribution', (path, params, scope) =>
    app.get(
      path,
      {
        config: { rateLimit: 'analytics', validationCodes: dateCodes },
        schema: {
          tags: ['analytics'],
          summary: 'Segments served per rendition height across videos (all time without dates)',
          operationId: `get${scope}ResolutionDistribution`,
          description:
            'Which rendition heights viewers watch: per height, segments served, distinct videos and days. ' +
            'Errors: 400 invalid_date, invalid_date_range, date_range_too_long; 503 when analytics are down.',
          params,
          querystring: DateRangeQuery,
          response: {
            200: Envelope(Type.Object({ distribution: Type.Array(DistributionEntrySchema) }), {
              distribution: [exampleDistributionEntry],
            }),
            ...errorResponses(400, 404, 503),
          },
        },
      },
      async (request) => {
        const access = accessOf(request);
        const query = request.query as { startDate?: string; endDate?: string };
        const start = dateOf(query.startDate);
        const end = dateOf(query.endDate);
        checkOrder(start, end, query);
        const scope: RollupScope = {
          orgId: access.orgId,
          envId: scopeEnvironment(access),
          from: start && day(start),
          to: end && day(end),
        };
        const heights = await read(request, () => storeOf(deps).segmentsByHeight(scope));
        return {
          body: {
            distribution: heights.map((h) => ({
              resolutionHeight: h.height,
              segmentsServed: h.segments,
              uniqueVideos: h.videos,
              daysActive: h.days,
              firstServed: timestamp(h.firstServed),
              firstServedValid: true,
              lastServed: timestamp(h.lastServed),
              lastServedValid: true,
            })),
          },
        };
      },
    ),
  );
};
