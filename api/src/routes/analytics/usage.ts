// Usage per environment over the periodDays days up to endDate (today by default), for the organization and
// under /environments/{envID}.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listEnvironments, videoUsageByEnvironment } from '@kino/database/repositories';
import type { RouteOptions } from '../../deps.ts';
import { accessOf } from '../../plugins/access.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { exampleUsageRecord, UsageRecordSchema } from '../../schemas/analytics.ts';
import {
  DAY_MS,
  day,
  dateCodes,
  dateOf,
  dateParam,
  forOrganizationAndEnvironment,
  MAX_RANGE_DAYS,
  read,
  scopeEnvironment,
  storeOf,
  timestamp,
  todayOf,
} from './common.ts';

const UsageQuery = Type.Object({
  periodDays: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_RANGE_DAYS,
      default: 30,
      description: 'The period: the periodDays UTC days ending with endDate, endDate included.',
    }),
  ),
  endDate: dateParam("The period's last UTC day, YYYY-MM-DD (inclusive). Default: today."),
});

export const usageRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  forOrganizationAndEnvironment('usage', (path, params, scope) =>
    app.get(
      path,
      {
        config: {
          rateLimit: 'analytics',
          validationCodes: { 'query.periodDays': 'invalid_period_days', 'query.endDate': dateCodes['query.endDate'] },
        },
        schema: {
          tags: ['analytics'],
          summary: 'Usage per environment over the last periodDays days',
          operationId: `get${scope}Usage`,
          description:
            'One record per environment (one for an environment path or key): videos and their duration now, segments served ' +
            'all time and in the period, videos uploaded in the period. Errors: 400 invalid_period_days, invalid_date; 503 when analytics are down.',
          params,
          querystring: UsageQuery,
          response: {
            200: Envelope(Type.Object({ usage: Type.Array(UsageRecordSchema) }), { usage: [exampleUsageRecord] }),
            ...errorResponses(400, 404, 503),
          },
        },
      },
      async (request) => {
        const access = accessOf(request);
        const envId = scopeEnvironment(access);
        const { periodDays, endDate } = request.query as { periodDays: number; endDate?: string };
        const until = dateOf(endDate) ?? todayOf(deps);
        const since = new Date(until.getTime() - (periodDays - 1) * DAY_MS);
        const environments = (await listEnvironments(deps.db, access.orgId)).filter(
          (e) => envId === undefined || e.id === envId,
        );
        const envIds = environments.map((e) => e.id);
        const [videos, segments] = await Promise.all([
          videoUsageByEnvironment(deps.db, {
            orgId: access.orgId,
            envIds,
            since,
            before: new Date(until.getTime() + DAY_MS),
          }),
          read(request, () =>
            storeOf(deps).segmentsByEnvironment({ orgId: access.orgId, envId }, day(since), day(until)),
          ),
        ]);
        return {
          body: {
            usage: envIds.map((id) => {
              const v = videos.get(id);
              const s = segments.get(id);
              return {
                authOrgId: access.orgId,
                envId: id,
                totalVideos: v?.totalVideos ?? 0,
                totalVideoDurationSeconds: v?.totalDurationSeconds ?? 0,
                totalSegmentsServed: s?.totalSegments ?? 0,
                videosUploadedInPeriod: v?.uploadedSince ?? 0,
                segmentsServedInPeriod: s?.segmentsSince ?? 0,
                firstVideoUploaded: v?.firstUploadedAt ? timestamp(v.firstUploadedAt) : '',
                firstVideoUploadedValid: Boolean(v?.firstUploadedAt),
                lastSegmentServed: s && s.totalSegments > 0 ? timestamp(s.lastServed) : '',
                lastSegmentServedValid: Boolean(s && s.totalSegments > 0),
              };
            }),
          },
        };
      },
    ),
  );
};
