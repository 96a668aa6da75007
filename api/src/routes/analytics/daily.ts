// Segments served per UTC day, for the organization and under /environments/{envID}.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RollupScope } from '@kino/analytics';
import type { RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { ValidationError } from '../../http/errors.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { DailyRecordSchema, exampleDailyRecord } from '../../schemas/analytics.ts';
import {
  checkOrder,
  DAY_MS,
  dateCodes,
  dateOf,
  dateParam,
  day,
  forOrganizationAndEnvironment,
  MAX_RANGE_DAYS,
  read,
  scopeEnvironment,
  storeOf,
  todayOf,
} from './common.ts';

/** The default look-back of `daily` (spec). */
const DEFAULT_DAILY_DAYS = 30;

const DailyQuery = Type.Object({
  startDate: dateParam(`First UTC day, YYYY-MM-DD (inclusive). Default: ${DEFAULT_DAILY_DAYS} days before endDate.`),
  endDate: dateParam('Last UTC day, YYYY-MM-DD (inclusive). Default: today.'),
});

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
          querystring: DailyQuery,
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
        const end = dateOf(query.endDate) ?? todayOf(deps);
        const start = dateOf(query.startDate) ?? new Date(end.getTime() - DEFAULT_DAILY_DAYS * DAY_MS);
        checkOrder(start, end, query);
        if ((end.getTime() - start.getTime()) / DAY_MS > MAX_RANGE_DAYS) {
          throw new ValidationError('date_range_too_long', `The range may span at most ${MAX_RANGE_DAYS} days`, [
            {
              message: `endDate may be at most ${MAX_RANGE_DAYS} days after startDate`,
              location: 'query.endDate',
              value: query.endDate ?? day(end),
            },
          ]);
        }
        const scope: RollupScope = {
          orgId: access.orgId,
          envId: scopeEnvironment(access),
          from: day(start),
          to: day(end),
        };
        const byDay = new Map((await read(request, () => storeOf(deps).segmentsByDay(scope))).map((d) => [d.day, d]));
        const dailyUsage = [];
        for (let t = start.getTime(); t <= end.getTime(); t += DAY_MS) {
          const d = byDay.get(day(new Date(t)));
          dailyUsage.push({
            deliveryDate: `${day(new Date(t))}T00:00:00Z`,
            segmentsServed: d?.segments ?? 0,
            uniqueVideosServed: d?.videos ?? 0,
            hdSegments: d?.hd ?? 0,
            sdSegments: d?.sd ?? 0,
            ldSegments: d?.ld ?? 0,
          });
        }
        return { body: { dailyUsage } };
      },
    ),
  );
};
