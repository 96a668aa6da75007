// The video lists: an environment's, and an organization's across its environments (the same page,
// filters and order).
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { videoStatuses } from '@kino/proto/contract';
import { listVideos, type ListVideosQuery } from '@kino/database/repositories';
import { presentVideoListItem, thumbnailUrlsFor } from '@kino/presenters';
import type { RouteOptions } from '../../deps.ts';
import { accessOf, environmentScope } from '../../plugins/access.ts';
import { ValidationError } from '../../http/errors.ts';
import {
  CalendarDate,
  EnvParams,
  Envelope,
  errorResponses,
  OrgParams,
  parseCalendarDate,
  StringEnum,
  Text,
} from '../../schemas/common.ts';
import {
  exampleIds,
  examplePagination,
  exampleVideoListItem,
  OrgVideoListItemSchema,
  PaginationSchema,
  VideoListItemSchema,
} from '../../schemas/videos.ts';
import { segmentsServedFor } from '../../videos/served-segments.ts';

export interface PageRequest {
  page: number;
  pageSize: number;
}

/** The `pagination` of a list's answer: the page asked for, among `total` videos. */
export function paginationOf({ page, pageSize }: PageRequest, total: number) {
  const totalPages = Math.ceil(total / pageSize);
  return { total, page, pageSize, totalPages, hasNext: page < totalPages, hasPrevious: page > 1 };
}

/** Far past any real listing, and small enough that its OFFSET stays an integer PostgreSQL takes. */
const MAX_PAGE = 1_000_000;

// Each parameter may be left out (its default applies), so each is optional in the document.
const ListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'At most 100.' })),
  sortBy: Type.Optional(StringEnum(['created_at', 'name', 'duration', 'status'] as const, { default: 'created_at' })),
  sortDir: Type.Optional(StringEnum(['asc', 'desc'] as const, { default: 'desc' })),
  status: Type.Optional(StringEnum(videoStatuses)),
  search: Type.Optional(Text({ maxLength: 200, description: 'Case-insensitive match in video names.' })),
  from: Type.Optional(CalendarDate('Created on or after this date (UTC), YYYY-MM-DD.')),
  to: Type.Optional(CalendarDate('Created on or before this date (UTC), YYYY-MM-DD.')),
  externalId: Type.Optional(
    Text({ minLength: 1, maxLength: 128, description: 'Only the videos whose metadata.externalId is exactly this.' }),
  ),
  liveStreamId: Type.Optional(
    Text({
      minLength: 1,
      maxLength: 64,
      description: "Only this live stream's broadcasts (ls_…): the videos recorded from it.",
    }),
  ),
});
type ListQueryValue = typeof ListQuery.static;

/** List filters from the query, with `from` ≤ `to` checked (the schema's `format: date` made them real days). */
export function listFilters(query: ListQueryValue): Omit<ListVideosQuery, 'orgId' | 'envId'> {
  const from = query.from === undefined ? undefined : parseCalendarDate(query.from);
  const to = query.to === undefined ? undefined : parseCalendarDate(query.to);
  if (from && to && from > to) {
    throw new ValidationError('invalid_date_range', 'from must not be after to', [
      { message: 'from must not be after to', location: 'query.from', value: query.from },
    ]);
  }
  return {
    page: query.page ?? 1,
    pageSize: query.pageSize ?? 20,
    sortBy: query.sortBy ?? 'created_at',
    sortDir: query.sortDir ?? 'desc',
    status: query.status,
    search: query.search || undefined,
    externalId: query.externalId,
    liveStreamId: query.liveStreamId,
    createdFrom: from,
    // `to` is inclusive: everything created before the next midnight.
    createdBefore: to ? new Date(to.getTime() + 24 * 3600_000) : undefined,
  };
}

export const listVideoRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.get(
    '/:orgID/environments/:envID/videos',
    {
      config: { rateLimit: 'video', validationCodes: { 'query.pageSize': 'invalid_page_size' } },
      schema: {
        tags: ['videos'],
        summary: 'List the videos of an environment',
        operationId: 'listVideos',
        description:
          'A page of videos (20 by default, at most 100), newest first unless sortBy and sortDir say otherwise, filtered by status, ' +
          "a name search, creation dates, externalId and liveStreamId (a live stream's broadcasts). Errors: 400 invalid_page_size, invalid_date_range.",
        params: EnvParams,
        querystring: ListQuery,
        response: {
          200: Envelope(Type.Object({ videos: Type.Array(VideoListItemSchema), pagination: PaginationSchema }), {
            videos: [exampleVideoListItem],
            pagination: examplePagination,
          }),
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const filters = listFilters(request.query);
      const { videos, total } = await listVideos(deps.db, {
        ...filters,
        orgId: access.orgId,
        envId: access.environment!.id,
      });
      const [served, thumbnails] = await Promise.all([
        segmentsServedFor(deps, request.log, videos),
        thumbnailUrlsFor(deps, videos),
      ]);
      return {
        body: {
          videos: videos.map((v) => presentVideoListItem(v, thumbnails.get(v.id) ?? null, served.get(v.id) ?? 0)),
          pagination: paginationOf(filters, total),
        },
      };
    },
  );

  app.get(
    '/:orgID/videos',
    {
      config: { rateLimit: 'video', validationCodes: { 'query.pageSize': 'invalid_page_size' } },
      schema: {
        tags: ['videos'],
        summary: 'List the videos of an organization, across its environments',
        operationId: 'listOrganizationVideos',
        description:
          "The environment list's page, filters and order over every environment, each video naming its envId. " +
          'An environment key lists the videos of its own environment only.',
        params: OrgParams,
        querystring: ListQuery,
        response: {
          200: Envelope(Type.Object({ videos: Type.Array(OrgVideoListItemSchema), pagination: PaginationSchema }), {
            videos: [{ ...exampleVideoListItem, envId: exampleIds.envId }],
            pagination: examplePagination,
          }),
          ...errorResponses(400, 404),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const filters = listFilters(request.query);
      const { videos, total } = await listVideos(deps.db, {
        ...filters,
        orgId: access.orgId,
        envId: environmentScope(access),
      });
      const [served, thumbnails] = await Promise.all([
        segmentsServedFor(deps, request.log, videos),
        thumbnailUrlsFor(deps, videos),
      ]);
      return {
        body: {
          videos: videos.map((v) => ({
            ...presentVideoListItem(v, thumbnails.get(v.id) ?? null, served.get(v.id) ?? 0),
            envId: v.env_id,
          })),
          pagination: paginationOf(filters, total),
        },
      };
    },
  );
};
