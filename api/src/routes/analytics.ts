// The Analytics part of the interface: usage, daily, storage, resolution distribution (each for the
// organization and under /environments/{envID}) and one video's resolutions. Segment counts come
// from the ClickHouse rollup (@kino/analytics' analytics-store.ts), video facts from PostgreSQL. An environment key
// sees its own environment only, on organization paths too. Days are UTC calendar days.
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { ApiDeps, RouteOptions } from '../deps.ts';
import type { Access } from '../http/fastify-augment.ts';
import { accessOf, assertEnvironmentReach, environmentScope } from '../plugins/access.ts';
import { NotFoundError, ServiceUnavailableError, ValidationError } from '../http/errors.ts';
import { CalendarDate, Envelope, EnvParams, errorResponses, Id, OrgParams, parseCalendarDate } from '../schemas/common.ts';
import {
  DailyRecordSchema,
  DistributionEntrySchema,
  exampleDailyRecord,
  exampleDistributionEntry,
  exampleStorageRecord,
  exampleUsageRecord,
  exampleVideoResolutions,
  ResolutionEntrySchema,
  ResolutionSummarySchema,
  StorageRecordSchema,
  UsageRecordSchema,
} from '../schemas/analytics.ts';
import { AnalyticsStore, type RollupScope } from '@kino/analytics';
import { listEnvironments, getVideo, storedVideoDurations, videoUsageByEnvironment, listRenditions } from '@kino/database/repositories';

const DAY_MS = 24 * 3600_000;
/** The longest range `daily` answers, and the default look-back of `daily` (spec). */
const MAX_RANGE_DAYS = 365;
const DEFAULT_DAILY_DAYS = 30;

const dateParam = (description: string) => Type.Optional(CalendarDate(description));
const DateRangeQuery = Type.Object({
  startDate: dateParam('First UTC day, YYYY-MM-DD (inclusive). Omitted: no lower bound.'),
  endDate: dateParam('Last UTC day, YYYY-MM-DD (inclusive). Omitted: no upper bound.'),
});
const DailyQuery = Type.Object({
  startDate: dateParam(`First UTC day, YYYY-MM-DD (inclusive). Default: ${DEFAULT_DAILY_DAYS} days before endDate.`),
  endDate: dateParam('Last UTC day, YYYY-MM-DD (inclusive). Default: today.'),
});
const UsageQuery = Type.Object({
  periodDays: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RANGE_DAYS, default: 30, description: 'The period: the last periodDays UTC days, today included.' })),
});
const VideoParams = Type.Object({ orgID: Id, publicID: Id });

const dateCodes = { 'query.startDate': 'invalid_date', 'query.endDate': 'invalid_date' };

/** `YYYY-MM-DD hh:mm:ss` (ClickHouse, UTC) or a Date as the analytics timestamp `YYYY-MM-DDThh:mm:ssZ`. */
function timestamp(value: string | Date): string {
  const text = typeof value === 'string' ? value.replace(' ', 'T') : value.toISOString();
  return `${text.slice(0, 19)}Z`;
}

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** A date parameter as the UTC midnight it starts (the schema's `format: date` made it a real day). */
function dateOf(text: string | undefined): Date | undefined {
  return text === undefined ? undefined : parseCalendarDate(text);
}

function checkOrder(start: Date | undefined, end: Date | undefined, query: { startDate?: string }): void {
  if (start && end && start > end) {
    throw new ValidationError('invalid_date_range', 'startDate must not be after endDate', [
      { message: 'startDate must not be after endDate', location: 'query.startDate', value: query.startDate },
    ]);
  }
}

/** The environment a request is limited to: the path's, or an environment key's own. */
function scopeEnvironment(access: Access): string | undefined {
  return access.environment?.id ?? environmentScope(access);
}

function storeOf(deps: ApiDeps): AnalyticsStore {
  if (!deps.clickhouse) throw new ServiceUnavailableError('Analytics are not configured on this server (no CLICKHOUSE_URL).');
  return new AnalyticsStore(deps.clickhouse);
}

/** Runs an analytics read; a store that fails or is down is a 503, not a 500. */
async function read<T>(request: FastifyRequest, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    request.log.error({ err: error }, 'analytics store query failed');
    throw new ServiceUnavailableError('The analytics store is unavailable; try again shortly.');
  }
}

export const analyticsRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  const store = () => storeOf(deps);
  const now = () => (deps.now ?? (() => new Date()))();
  const today = () => new Date(`${day(now())}T00:00:00.000Z`);

  /** Registers an organization path and its `/environments/{envID}` twin; `scope` names them apart in operationIds. */
  function both(tail: string, register: (path: string, params: TSchema, scope: 'Organization' | 'Environment') => void): void {
    register(`/:orgID/analytics/${tail}`, OrgParams, 'Organization');
    register(`/:orgID/environments/:envID/analytics/${tail}`, EnvParams, 'Environment');
  }

  both('usage', (path, params, scope) =>
    app.get(
      path,
      {
        config: { rateLimit: 'analytics', validationCodes: { 'query.periodDays': 'invalid_period_days' } },
        schema: {
          tags: ['analytics'],
          summary: 'Usage per environment over the last periodDays days',
          operationId: `get${scope}Usage`,
          description:
            'One record per environment (one for an environment path or key): videos and their duration now, segments served ' +
            'all time and in the period, videos uploaded in the period. Errors: 400 invalid_period_days; 503 when analytics are down.',
          params,
          querystring: UsageQuery,
          response: { 200: Envelope(Type.Object({ usage: Type.Array(UsageRecordSchema) }), { usage: [exampleUsageRecord] }), ...errorResponses(400, 404, 503) },
        },
      },
      async (request) => {
        const access = accessOf(request);
        const envId = scopeEnvironment(access);
        const { periodDays } = request.query as { periodDays: number };
        const since = new Date(today().getTime() - (periodDays - 1) * DAY_MS);
        const environments = (await listEnvironments(deps.db, access.orgId)).filter((e) => envId === undefined || e.id === envId);
        const envIds = environments.map((e) => e.id);
        const [videos, segments] = await Promise.all([
          videoUsageByEnvironment(deps.db, { orgId: access.orgId, envIds, since }),
          read(request, () => store().segmentsByEnvironment({ orgId: access.orgId, envId }, day(since))),
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

  both('daily', (path, params, scope) =>
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
            200: Envelope(Type.Object({ dailyUsage: Type.Array(DailyRecordSchema) }), { dailyUsage: [exampleDailyRecord] }),
            ...errorResponses(400, 404, 503),
          },
        },
      },
      async (request) => {
        const access = accessOf(request);
        const query = request.query as { startDate?: string; endDate?: string };
        const end = dateOf(query.endDate) ?? today();
        const start = dateOf(query.startDate) ?? new Date(end.getTime() - DEFAULT_DAILY_DAYS * DAY_MS);
        checkOrder(start, end, query);
        if ((end.getTime() - start.getTime()) / DAY_MS > MAX_RANGE_DAYS) {
          throw new ValidationError('date_range_too_long', `The range may span at most ${MAX_RANGE_DAYS} days`, [
            { message: `endDate may be at most ${MAX_RANGE_DAYS} days after startDate`, location: 'query.endDate', value: query.endDate ?? day(end) },
          ]);
        }
        const scope: RollupScope = { orgId: access.orgId, envId: scopeEnvironment(access), from: day(start), to: day(end) };
        const byDay = new Map((await read(request, () => store().segmentsByDay(scope))).map((d) => [d.day, d]));
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

  both('storage', (path, params, scope) =>
    app.get(
      path,
      {
        config: { rateLimit: 'analytics' },
        schema: {
          tags: ['analytics'],
          summary: 'Videos that exist and their duration per quality preset',
          operationId: `get${scope}Storage`,
          description: 'What is stored now: the count of videos (deleted ones excluded), their total and mean duration, and seconds per quality preset.',
          params,
          response: { 200: Envelope(Type.Object({ storage: StorageRecordSchema }), { storage: exampleStorageRecord }), ...errorResponses(404) },
        },
      },
      async (request) => {
        const access = accessOf(request);
        const stored = await storedVideoDurations(deps.db, { orgId: access.orgId, envId: scopeEnvironment(access) });
        return {
          body: {
            storage: {
              totalVideos: stored.totalVideos,
              totalDurationSeconds: stored.totalDurationSeconds,
              avgVideoDuration: stored.totalVideos ? stored.totalDurationSeconds / stored.totalVideos : 0,
              ultraQualityDuration: stored.byQuality.ultra,
              highQualityDuration: stored.byQuality.high,
              standardQualityDuration: stored.byQuality.standard,
            },
          },
        };
      },
    ),
  );

  both('resolution-distribution', (path, params, scope) =>
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
            200: Envelope(Type.Object({ distribution: Type.Array(DistributionEntrySchema) }), { distribution: [exampleDistributionEntry] }),
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
        const scope: RollupScope = { orgId: access.orgId, envId: scopeEnvironment(access), from: start && day(start), to: end && day(end) };
        const heights = await read(request, () => store().segmentsByHeight(scope));
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
          200: Envelope(Type.Object({ summary: ResolutionSummarySchema, resolutions: Type.Array(ResolutionEntrySchema) }), exampleVideoResolutions),
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
      if (!video || video.org_id !== access.orgId) throw new NotFoundError('video_not_found', `Video ${publicID} does not exist.`);
      assertEnvironmentReach(access, video.env_id);
      const scope = { orgId: access.orgId, videoId: video.id, from: start && day(start), to: end && day(end) };
      const [renditions, { heights, totals }] = await Promise.all([
        listRenditions(deps.db, video.id),
        read(request, () => store().videoSegments(scope)),
      ]);
      const naming = { vidId: video.id, vidPublicId: video.id, vidName: video.name, vidNameValid: true };
      // Most segments wins; on a tie the taller height (heights come tallest first).
      const popular = heights.reduce<(typeof heights)[number] | undefined>((best, h) => (!best || h.segments > best.segments ? h : best), undefined);
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
