// Segments served per UTC day, for the organization and under /environments/{envID}.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RollupScope } from '@kino/analytics';
import type { RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { DailyRecordSchema, exampleDailyRecord } from '../../schemas/analytics.ts';
import {
  dateCodes,
  day,
  DayListQuery,
  dayListRange,
  daysOf,
  forOrganizationAndEnvironment,
  read,
  scopeEnvironment,
  storeOf,
} from './common.ts';

export const dailyRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  forOrganizationAndEnvironment('daily', (path, params, scope) =>
    app.get(
      path,
      {
        config: { rateLimit: 'analytics', validationCodes: dateCodes },
        schema: {
          tags: ['analytics'],
          summary: 'Segments served per UTC day (every day of the range, zeros included)',
          operationId: `get${scope}DailyUsage`,
          description:
            'Segments and distinct videos served each day, split into HD, SD and LD; the last 30 days by default, at most 365. ' +
            'Errors: 400 invalid_date, invalid_date_range, date_range_too_long; 503 when analytics are down.',
          params,
          querystring: DayListQuery,
          response: {
            200: Envelope(Type.Object({ dailyUsage: Type.Array(DailyRecordSchema) }), {
              dailyUsage: [exampleDailyRecord],
            }),
            ...errorResponses(400, 404, 503),
          },
        },
      },
      async (request) => {
        const access = accessOf(request);
        const query = request.query as { startDate?: string; endDate?: string };
        const range = dayListRange(query, deps);
        const scope: RollupScope = {
          orgId: access.orgId,
          envId: scopeEnvironment(access),
          from: day(range.start),
          to: day(range.end),
        };
        const byDay = new Map((await read(request, () => storeOf(deps).segmentsByDay(scope))).map((d) => [d.day, d]));
        const dailyUsage = daysOf(range).map((date) => {
          const d = byDay.get(date);
          return {
            deliveryDate: `${date}T00:00:00Z`,
            segmentsServed: d?.segments ?? 0,
            uniqueVideosServed: d?.videos ?? 0,
            hdSegments: d?.hd ?? 0,
            sdSegments: d?.sd ?? 0,
            ldSegments: d?.ld ?? 0,
          };
        });
        return { body: { dailyUsage } };
      },
    ),
  );
};
