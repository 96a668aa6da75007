// Experience analytics (issue 58): startup time, rebuffering, failures and exits before start of the
// views players reported, per day, video, browser, OS or rendition; for the organization, under
// /environments/{envID}, and for one video. The figures' definitions: docs/analytics.md.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import {
  EXPERIENCE_MAX_PAGE_SIZE,
  EXPERIENCE_PAGE_SIZE,
  experienceFigures,
  experienceGroupings,
  noExperienceSums,
  type ExperienceGrouping,
  type RollupScope,
} from '@kino/analytics';
import { getVideo } from '@kino/database/repositories';
import type { ApiDeps, RouteOptions } from '../../deps.ts';
import { accessOf, assertEnvironmentReach } from '../../plugins/access.ts';
import { NotFoundError } from '../../http/errors.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { PaginationSchema, VideoParams } from '../../schemas/videos.ts';
import { paginationOf } from '../videos/list.ts';
import { exampleExperienceRecord, ExperienceRecordSchema } from '../../schemas/analytics.ts';
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

const ExperienceQuery = Type.Composite([
  DayListQuery,
  Type.Object({
    groupBy: Type.Optional(
      Type.Union(
        experienceGroupings.map((g) => Type.Literal(g)),
        {
          default: 'day',
          description:
            'What each record groups: every day of the range (zeros included), or videos, browsers, operating systems or renditions, a page at a time, the most viewed first. Default: day.',
        },
      ),
    ),
    page: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Groupings other than day: 1-based.' }),
    ),
    pageSize: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: EXPERIENCE_MAX_PAGE_SIZE,
        default: EXPERIENCE_PAGE_SIZE,
        description: `Groupings other than day: keys a page, at most ${EXPERIENCE_MAX_PAGE_SIZE}.`,
      }),
    ),
  }),
]);
type ExperienceQueryValue = {
  startDate?: string;
  endDate?: string;
  groupBy?: ExperienceGrouping;
  page?: number;
  pageSize?: number;
};

const codes = { ...dateCodes, 'query.groupBy': 'invalid_group_by', 'query.pageSize': 'invalid_page_size' };

const schemaOf = (operationId: string, summary: string, notFound = '') => ({
  tags: ['analytics'],
  summary,
  operationId,
  description:
    'Views, watch time, video startup time (p50, p95), rebuffer percentage and frequency, playback failures and exits before start, ' +
    'as Mux Data defines them (docs/analytics.md); the last 30 days by default, at most 365. Grouped by day: every day of ' +
    'the range; by anything else: a page of keys and `pagination`. ' +
    `Errors: 400 invalid_date, invalid_date_range, date_range_too_long, invalid_group_by, invalid_page_size; ${notFound}503 when analytics are down.`,
  querystring: ExperienceQuery,
  response: {
    200: Envelope(
      Type.Object({
        experience: Type.Array(ExperienceRecordSchema),
        pagination: Type.Optional(PaginationSchema),
      }),
      { experience: [exampleExperienceRecord] },
    ),
    ...errorResponses(400, 404, 503),
  },
});

/** The records of a scope: every day of the range for `day` (zeros included), else the store's keys. */
async function experienceOf(
  request: FastifyRequest,
  deps: ApiDeps,
  query: ExperienceQueryValue,
  scope: Omit<RollupScope, 'from' | 'to'>,
) {
  const range = dayListRange(query, deps);
  const groupBy = query.groupBy ?? 'day';
  const page = { page: query.page ?? 1, pageSize: query.pageSize ?? EXPERIENCE_PAGE_SIZE };
  const { groups, totalKeys } = await read(request, () =>
    storeOf(deps).experienceSums({ ...scope, from: day(range.start), to: day(range.end) }, groupBy, page),
  );
  if (groupBy !== 'day')
    return {
      experience: groups.map((g) => experienceFigures(g.key, g.sums)),
      pagination: paginationOf(page, totalKeys),
    };
  const byDay = new Map(groups.map((g) => [g.key, g.sums]));
  return { experience: daysOf(range).map((d) => experienceFigures(d, byDay.get(d) ?? noExperienceSums)) };
}

export const experienceRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  forOrganizationAndEnvironment('experience', (path, params, scope) =>
    app.get(
      path,
      {
        config: { rateLimit: 'analytics', validationCodes: codes },
        schema: {
          ...schemaOf(`get${scope}Experience`, 'What viewers lived through: startup, rebuffering, failures, exits'),
          params,
        },
      },
      async (request) => {
        const access = accessOf(request);
        const query = request.query as ExperienceQueryValue;
        return {
          body: await experienceOf(request, deps, query, { orgId: access.orgId, envId: scopeEnvironment(access) }),
        };
      },
    ),
  );

  app.get(
    '/:orgID/videos/:publicID/analytics/experience',
    {
      config: { rateLimit: 'analytics', validationCodes: codes },
      schema: {
        ...schemaOf(
          'getVideoExperience',
          'What viewers of one video lived through (deleted videos keep theirs)',
          '404 video_not_found; ',
        ),
        params: VideoParams,
      },
    },
    async (request) => {
      const access = accessOf(request);
      // Deleted videos included: their analytics are kept.
      const video = await getVideo(deps.db, request.params.publicID);
      if (!video || video.org_id !== access.orgId)
        throw new NotFoundError('video_not_found', `Video ${request.params.publicID} does not exist.`);
      assertEnvironmentReach(access, video.env_id);
      const query = request.query as ExperienceQueryValue;
      return { body: await experienceOf(request, deps, query, { orgId: access.orgId, videoId: video.id }) };
    },
  );
};
