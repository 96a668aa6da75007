// Processing and managing videos: process, list (per environment and per organization), details,
// changes (PATCH), retry and delete.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { newId } from '@kino/infra';
import {
  objectKeys,
  additionalVideoCodecs,
  audioCodecs,
  compressionRatios,
  defaultEncodingParameters as defaults,
  encodingParameterNames,
  deleteReasons,
  encodingModes,
  maxEdgeLengths,
  maxFrameRateLimit,
  pixelFormats,
  rateControlModes,
  videoQualities,
  videoStatuses,
} from '@kino/proto/contract';
import type { Video } from '@kino/database';
import type { ApiDeps, RouteOptions } from '../deps.ts';
import { liveVideoInReach, videoInReach } from '../videos/video-in-reach.ts';
import {
  findUpload,
  createVideo,
  deleteVideoRow,
  findLiveVideoByStoragePath,
  isUniqueViolation,
  listVideos,
  markVideoDeleted,
  markVideoFailed,
  resetFailedVideoForRetry,
  undoVideoDeleted,
  type ListVideosQuery,
  listCaptionTracks,
  listRenditions,
  updateVideo,
} from '@kino/database/repositories';
import { accessOf, environmentScope } from '../plugins/access.ts';
import {
  type ApiError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  ServiceUnavailableError,
  storageUnavailable,
  UnprocessableEntityError,
  ValidationError,
} from '../http/errors.ts';
import {
  CalendarDate,
  EnvParams,
  Envelope,
  errorResponses,
  Id,
  IntegerEnum,
  OrgParams,
  parseCalendarDate,
  StringEnum,
  Text,
  WEBHOOK_URL_PATTERN,
  withExamples,
} from '../schemas/common.ts';
import {
  exampleIds,
  examplePagination,
  exampleVideoDetails,
  exampleVideoListItem,
  OrgVideoListItemSchema,
  PaginationSchema,
  VideoDetailsSchema,
  VideoListItemSchema,
} from '../schemas/videos.ts';
import { checkEncodingParameters, withDefaultParameters } from '../videos/encoding-parameters.ts';
import { sourceSizeProblem } from '../uploads/upload-limits.ts';
import { CONTAINER_SNIFF_BYTES, sniffContainer } from '@kino/proto/contract';
import { presentVideoListItem } from '@kino/presenters';
import { detailsOf } from '@kino/presenters';
import { sendVideoEvent } from '../videos/video-events.ts';
import { thumbnailUrlsFor } from '@kino/presenters';
import { restartProcessVideo, startDeleteVideoContent, startProcessVideo, WorkflowExecutionAlreadyStartedError } from '../videos/workflows.ts';

/** The body of `POST .../videos/process` (exported for the test that maps every value it accepts to ffmpeg). */
export const ProcessBody = Type.Object({
  storagePath: Text({ minLength: 1, maxLength: 1024, description: 'The bucketPath of an upload ticket.' }),
  ...processOptions(),
});

/** The options of `videos/process` beside the source: `videos/ingest` takes them all. */
function processOptions() {
  return {
  videoQuality: StringEnum(videoQualities),
  allowPublicAccess: Type.Boolean(),
  videoName: Type.Optional(Text({ minLength: 1, maxLength: 255, description: 'Default: the uploaded file name.' })),
  maxEdgeLength: Type.Optional(IntegerEnum(maxEdgeLengths, { default: defaults.maxEdgeLength, description: '-1: no limit.' })),
  maxFrameRate: Type.Optional(
    Type.Integer({ minimum: -1, maximum: maxFrameRateLimit, default: defaults.maxFrameRate, description: `-1 (auto) or 1..${maxFrameRateLimit}.` }),
  ),
  pixelFormat: Type.Optional(StringEnum(pixelFormats, { default: defaults.pixelFormat })),
  rateControlMode: Type.Optional(StringEnum(rateControlModes, { default: defaults.rateControlMode })),
  twoPassVBREncoding: Type.Optional(Type.Boolean({ default: defaults.twoPassVBREncoding })),
  compressionRatio: Type.Optional(StringEnum(compressionRatios, { default: defaults.compressionRatio })),
  audioCodec: Type.Optional(StringEnum(audioCodecs, { default: defaults.audioCodec })),
  encodingMode: Type.Optional(
    StringEnum(encodingModes, {
      default: defaults.encodingMode,
      description:
        "`fixed`: each rendition spends the preset's ladder bitrate. `contentAware`: each spends what the content needs, " +
        'never more than that ladder value.',
    }),
  ),
  additionalCodecs: Type.Optional(
    Type.Array(StringEnum(additionalVideoCodecs), {
      uniqueItems: true,
      default: defaults.additionalCodecs,
      description:
        'Codecs to make renditions in beside the H.264 ladder, which every video keeps (and which alone has MP4 downloads), ' +
        'each at most once; a codec rendition is keyed like its H.264 rung plus the codec (`720p-av1`).',
    }),
  ),
  };
}

/** The body of `POST .../videos/ingest`: the source's URL and every option of `videos/process`. */
export const IngestBody = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    // The webhook URL's pattern: http(s), a host name or dotted IPv4 address, no credentials.
    pattern: WEBHOOK_URL_PATTERN,
    description:
      'An http or https URL the source is fetched from, inside the video\'s workflow (redirects followed). ' +
      'Loopback, private, link-local and metadata addresses are refused (the video fails with source_address_refused).',
  }),
  ...processOptions(),
  videoName: Type.Optional(Text({ minLength: 1, maxLength: 255, description: "Default: the URL's last path segment." })),
});

const processValidationCodes: Record<string, string> = {
  'body.storagePath': 'invalid_storage_path',
  'body.videoQuality': 'invalid_quality_preset',
  ...Object.fromEntries(encodingParameterNames.map((field) => [`body.${field}`, 'invalid_parameters'])),
};

const ingestValidationCodes: Record<string, string> = {
  'body.url': 'invalid_url',
  'body.videoQuality': 'invalid_quality_preset',
  ...Object.fromEntries(encodingParameterNames.map((field) => [`body.${field}`, 'invalid_parameters'])),
};

/** An ingested video's default name: the URL's last path segment, else its host. */
function nameFromUrl(url: URL): string {
  const segment = url.pathname.split('/').filter(Boolean).pop();
  let name = url.hostname;
  if (segment) {
    try {
      name = decodeURIComponent(segment);
    } catch {
      name = segment;
    }
  }
  return name.slice(0, 255);
}

export interface PageRequest {
  page: number;
  pageSize: number;
}

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
  externalId: Type.Optional(Text({ minLength: 1, maxLength: 128, description: 'Only the videos whose metadata.externalId is exactly this.' })),
});
type ListQueryValue = typeof ListQuery.static;

const VideoParams = Type.Object({ orgID: Id, publicID: Id });

/** A metadata field of PATCH: a string sets it, null clears it, absence leaves it. */
const MetadataField = (maxLength: number, description: string) =>
  Type.Optional(Type.Union([Text({ minLength: 1, maxLength, description }), Type.Null()]));

/** The body of `PATCH .../videos/{publicID}`: at least one field; what is absent stays as it is. */
export const UpdateBody = Type.Object(
  {
    videoName: Type.Optional(Text({ minLength: 1, maxLength: 255 })),
    description: Type.Optional(Type.Union([Text({ maxLength: 5000 }), Type.Null()], { description: 'Null or "" clears it.' })),
    allowPublicAccess: Type.Optional(
      Type.Boolean({ description: 'false: delivery asks for a token from the next metadata refresh (within DELIVERY_METADATA_TTL_MS, 2 s by default).' }),
    ),
    metadata: Type.Optional(
      Type.Object(
        {
          externalId: MetadataField(128, "The application's own id for the video (a list filter)."),
          creatorId: MetadataField(128, 'Who made it, in the application\'s terms.'),
          passthrough: MetadataField(255, 'Stored and returned as given.'),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { minProperties: 1, additionalProperties: false },
);
/** `/{orgID}/videos/{videoID}`: DELETE's and PATCH's path. */
const DeleteParams = Type.Object({ orgID: Id, videoID: Id });
const DeleteBody = Type.Object({ reason: Type.Optional(StringEnum(deleteReasons)) });

/** List filters from the query, with `from` ≤ `to` checked (the schema's `format: date` made them real days). */
function listFilters(query: ListQueryValue): Omit<ListVideosQuery, 'orgId' | 'envId'> {
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
    createdFrom: from,
    // `to` is inclusive: everything created before the next midnight.
    createdBefore: to ? new Date(to.getTime() + 24 * 3600_000) : undefined,
  };
}

async function segmentsServedFor(deps: ApiDeps, request: FastifyRequest, videos: Pick<Video, 'id' | 'org_id'>[]): Promise<Map<string, number>> {
  if (!deps.servedSegments || videos.length === 0) return new Map();
  try {
    return await deps.servedSegments.segmentsServed(videos[0]!.org_id, videos.map((v) => v.id));
  } catch (error) {
    // A view estimate is not worth failing a listing for.
    request.log.warn({ err: error }, 'served segments unavailable; reporting 0 views');
    return new Map();
  }
}

/** 422 `unsupported_format` unless the upload opens with a container the upload URL accepts. */
async function assertKnownContainer(deps: ApiDeps, request: FastifyRequest, storagePath: string): Promise<void> {
  let head: Buffer | undefined;
  try {
    head = await deps.storage.getFirstBytes(storagePath, CONTAINER_SNIFF_BYTES);
  } catch (error) {
    storageUnavailable(error, request.log, 'storage range GET');
  }
  if (head && sniffContainer(head)) return;
  throw new UnprocessableEntityError(
    'unsupported_format',
    head?.length
      ? 'The uploaded file is not an MP4, QuickTime, AVI, WebM or Matroska file (its first bytes open none of these containers).'
      : 'The uploaded file is empty.',
  );
}

/**
 * 400 `invalid_file_size` when the object storage holds is over the limit, whatever size its ticket
 * declared (a ticket issued before sizes were signed, or a file written to storage some other way),
 * and the object is removed: it would never be processed, only take space.
 */
async function refuseOversizedSource(deps: ApiDeps, request: FastifyRequest, storagePath: string, size: number): Promise<void> {
  const problem = sourceSizeProblem(size, deps.maxSourceBytes);
  if (!problem) return;
  let removed = false;
  try {
    await deps.storage.delete(storagePath);
    removed = true;
  } catch (error) {
    // The refusal stands either way: the file is over the limit whether or not it could be removed.
    request.log.error({ err: error, storagePath }, 'removing an oversized upload failed');
  }
  request.log.warn({ storagePath, size, removed }, 'oversized upload refused');
  throw new ValidationError('invalid_file_size', `${problem}${removed ? '; it was removed from storage' : ''}.`, [
    { message: problem, location: 'body.storagePath', value: storagePath },
  ]);
}

function unavailable(request: FastifyRequest, error: unknown, what: string): ApiError {
  request.log.error({ err: error }, `${what} failed`);
  return new ServiceUnavailableError(`The workflow service is unavailable, so nothing was changed; try again shortly (${what}).`);
}

export const videoRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/:orgID/environments/:envID/videos/process',
    {
      config: { rateLimit: 'video', validationCodes: processValidationCodes },
      schema: {
        tags: ['videos'],
        summary: 'Start processing an uploaded file',
        operationId: 'processVideo',
        description:
          'Makes a video of a file uploaded through an upload URL or a multipart upload (its bucketPath as storagePath): the ' +
          'video is `transcoding` at once and `ready` when its HLS ladder is stored; a webhook tells each change. Options left out ' +
          'take their defaults. Errors: 400 invalid_storage_path, invalid_quality_preset, invalid_parameters, invalid_file_size; ' +
          '409 processing_in_progress, already_processed; 422 unsupported_format (no container Kino reads, or an empty file).',
        params: EnvParams,
        body: withExamples(ProcessBody, {
          storagePath: 'uploads/org_3fK9xQ2mLr7TzV1a/env_8HcPq4Ws0dYbN6eJ/upl_Jq7Vn2Xc5Bd8Kp4M/keynote.mp4',
          videoQuality: 'high',
          allowPublicAccess: true,
          videoName: 'Product launch keynote',
          encodingMode: 'contentAware',
          additionalCodecs: ['av1'],
        }),
        response: {
          200: Envelope(Type.Object({ videoID: Type.String() }), { videoID: 'vid_5Rt2LmQ9xZk3Wv7A' }),
          ...errorResponses(400, 404, 409, 422, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const environment = access.environment!;
      const body = request.body;
      const parameters = withDefaultParameters(body);
      const parameterErrors = checkEncodingParameters(parameters);
      if (parameterErrors.length) {
        throw new ValidationError('invalid_parameters', parameterErrors.map((e) => e.message).join('; '), parameterErrors);
      }

      const invalidPath = (why: string) =>
        new ValidationError('invalid_storage_path', why, [{ message: why, location: 'body.storagePath', value: body.storagePath }]);
      const upload = await findUpload(deps.db, { orgId: access.orgId, envId: environment.id, bucketPath: body.storagePath });
      if (!upload) throw invalidPath('storagePath is not an upload URL issued to this organization and environment');
      let object: Awaited<ReturnType<ApiDeps['storage']['head']>>;
      try {
        object = await deps.storage.head(body.storagePath);
      } catch (error) {
        request.log.error({ err: error }, 'storage HEAD failed');
        throw new ServiceUnavailableError('Storage is unavailable; try again shortly.');
      }
      if (!object) throw invalidPath('nothing has been uploaded to storagePath yet: PUT the file to the signed URL first');
      await refuseOversizedSource(deps, request, body.storagePath, object.size);

      await assertKnownContainer(deps, request, body.storagePath);

      const existing = await findLiveVideoByStoragePath(deps.db, body.storagePath);
      if (existing?.status === 'transcoding') {
        throw new ConflictError('processing_in_progress', `This file is already being processed as video ${existing.id}.`);
      }
      if (existing) {
        throw new ConflictError(
          'already_processed',
          `This file was already processed as video ${existing.id} (${existing.status}). ` +
            (existing.status === 'failed' ? 'Retry it with POST /{orgID}/videos/{publicID}/retry, or delete it first.' : 'Delete it first to process the file again.'),
        );
      }

      const videoId = newId('vid');
      try {
        await createVideo(deps.db, {
          id: videoId,
          orgId: access.orgId,
          envId: environment.id,
          name: body.videoName ?? upload.filename,
          storagePath: body.storagePath,
          videoQuality: body.videoQuality,
          allowPublicAccess: body.allowPublicAccess,
          parameters,
        });
      } catch (error) {
        // Two process calls raced for the same file: the unique index let one through.
        if (isUniqueViolation(error)) throw new ConflictError('processing_in_progress', 'This file is already being processed.');
        throw error;
      }
      try {
        await startProcessVideo(deps.temporal, videoId);
      } catch (error) {
        await deleteVideoRow(deps.db, videoId);
        throw unavailable(request, error, 'starting processing');
      }
      request.log.info({ videoId, storagePath: body.storagePath }, 'processing started');
      await sendVideoEvent(deps, request.log, { event: 'video.created', videoId });
      return { body: { videoID: videoId } };
    },
  );

  app.post(
    '/:orgID/environments/:envID/videos/ingest',
    {
      config: { rateLimit: 'video', validationCodes: ingestValidationCodes },
      schema: {
        tags: ['videos'],
        summary: 'Make a video from a URL',
        operationId: 'ingestVideo',
        description:
          'The video is `transcoding` at once; its workflow fetches the URL into storage (resuming with Range after a dropped ' +
          'connection), then processes it as an upload. A source that answers an HTTP error, is over 5 GB, opens no accepted ' +
          'container or sits at a refused address ends `failed`, with the reason (source_http_error, source_too_large, ' +
          'source_unsupported_format, source_address_refused) in the details.',
        params: EnvParams,
        body: withExamples(IngestBody, { url: 'https://files.example.com/talks/keynote.mp4', videoQuality: 'high', allowPublicAccess: false }),
        response: {
          200: Envelope(Type.Object({ videoID: Type.String() }), { videoID: 'vid_5Rt2LmQ9xZk3Wv7A' }),
          ...errorResponses(400, 404, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const environment = access.environment!;
      const body = request.body;
      const url = URL.parse(body.url);
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
        const message = 'url must be an absolute http(s) URL without credentials';
        throw new ValidationError('invalid_url', message, [{ message, location: 'body.url', value: body.url }]);
      }
      const parameters = withDefaultParameters(body);
      const parameterErrors = checkEncodingParameters(parameters);
      if (parameterErrors.length) {
        throw new ValidationError('invalid_parameters', parameterErrors.map((e) => e.message).join('; '), parameterErrors);
      }
      const videoId = newId('vid');
      await createVideo(deps.db, {
        id: videoId,
        orgId: access.orgId,
        envId: environment.id,
        name: body.videoName ?? nameFromUrl(url),
        storagePath: objectKeys.ingestSource(access.orgId, environment.id, videoId),
        sourceUrl: url.href,
        videoQuality: body.videoQuality,
        allowPublicAccess: body.allowPublicAccess,
        parameters,
      });
      try {
        await startProcessVideo(deps.temporal, videoId);
      } catch (error) {
        await deleteVideoRow(deps.db, videoId);
        throw unavailable(request, error, 'starting processing');
      }
      request.log.info({ videoId, url: url.href }, 'ingest started');
      await sendVideoEvent(deps, request.log, { event: 'video.created', videoId });
      return { body: { videoID: videoId } };
    },
  );

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
          'a name search, creation dates and externalId. Errors: 400 invalid_page_size, invalid_date_range.',
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
      const { videos, total } = await listVideos(deps.db, { ...filters, orgId: access.orgId, envId: access.environment!.id });
      const [served, thumbnails] = await Promise.all([segmentsServedFor(deps, request, videos), thumbnailUrlsFor(deps, videos)]);
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
      const { videos, total } = await listVideos(deps.db, { ...filters, orgId: access.orgId, envId: environmentScope(access) });
      const [served, thumbnails] = await Promise.all([segmentsServedFor(deps, request, videos), thumbnailUrlsFor(deps, videos)]);
      return {
        body: {
          videos: videos.map((v) => ({ ...presentVideoListItem(v, thumbnails.get(v.id) ?? null, served.get(v.id) ?? 0), envId: v.env_id })),
          pagination: paginationOf(filters, total),
        },
      };
    },
  );

  app.get(
    '/:orgID/videos/:publicID/details',
    {
      config: { rateLimit: 'video' },
      schema: {
        tags: ['videos'],
        summary: 'Video details',
        operationId: 'getVideoDetails',
        description:
          'Everything about one video: its status (and why it failed), encoding options, its ladder, thumbnail, storyboard and ' +
          "caption URLs (with tokens for a private video), metadata and estimated views. Errors: 404 video_not_found.",
        params: VideoParams,
        response: { 200: Envelope(VideoDetailsSchema, exampleVideoDetails), ...errorResponses(404) },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const videoId = request.params.publicID;
      // The renditions and `served` need only the id, so they are read beside the video, not after
      // it: one database round trip instead of two in a row. When the video is not in reach (404,
      // 403) they are dropped unread; `served` is asked of the organization in the path, which is
      // the video's whenever anything is answered.
      const [video, renditions, served, captionTracks] = await Promise.all([
        videoInReach(deps, access, videoId),
        listRenditions(deps.db, videoId),
        segmentsServedFor(deps, request, [{ id: videoId, org_id: access.orgId }]),
        listCaptionTracks(deps.db, videoId),
      ]);
      if (video.deleted_at) throw new NotFoundError('video_not_found', `Video ${video.id} was deleted.`);
      return { body: await detailsOf(deps, video, { renditions, served, captionTracks }) };
    },
  );

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
        params: DeleteParams,
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
        segmentsServedFor(deps, request, [updated]),
        listCaptionTracks(deps.db, video.id),
      ]);
      const details = await detailsOf(deps, updated, { renditions, served, captionTracks });
      await sendVideoEvent(deps, request.log, { event: 'video.updated', videoId: video.id, details });
      return { body: details };
    },
  );

  app.post(
    '/:orgID/videos/:publicID/retry',
    {
      config: { rateLimit: 'video' },
      schema: {
        tags: ['videos'],
        summary: 'Process a failed video again',
        operationId: 'retryVideo',
        description:
          'Only a failed video can be retried (409 not_failed otherwise); it goes back to transcoding with the same source and options.',
        params: VideoParams,
        response: {
          200: Envelope(Type.Object({ videoID: Type.String(), status: StringEnum(['transcoding'] as const) }), { videoID: 'vid_5Rt2LmQ9xZk3Wv7A', status: 'transcoding' }),
          ...errorResponses(404, 409, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const video = await videoInReach(deps, access, request.params.publicID);
      if (video.deleted_at) throw new NotFoundError('video_not_found', `Video ${video.id} was deleted.`);
      const notFailed = (status: string) =>
        new ConflictError('not_failed', `Only a failed video can be retried; video ${video.id} is ${status}.`);
      if (video.status !== 'failed') throw notFailed(video.status);
      const reset = await resetFailedVideoForRetry(deps.db, video.id);
      if (!reset) throw notFailed('no longer failed');
      try {
        await restartProcessVideo(deps.temporal, video.id);
      } catch (error) {
        // Put the video back as it was: failed, with its reason.
        await markVideoFailed(deps.db, video.id, reset.failureReason ?? 'processing failed');
        if (error instanceof WorkflowExecutionAlreadyStartedError) {
          throw new ConflictError('processing_in_progress', 'The previous processing run is still finishing; retry in a few seconds.');
        }
        throw unavailable(request, error, 'starting processing');
      }
      request.log.info({ videoId: video.id }, 'processing retried');
      return { body: { videoID: video.id, status: 'transcoding' as const } };
    },
  );

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
        params: DeleteParams,
        body: withExamples(DeleteBody, { reason: 'user_request' }),
        response: {
          200: Envelope(Type.Object({ status: StringEnum(['deleted'] as const), deletedAt: Type.String(), message: Type.String() }), {
            status: 'deleted',
            deletedAt: '2026-11-26T10:00:00.000Z',
            message: 'The video is deleted. Its files are removed within 24 hours; its analytics are kept.',
          }),
          ...errorResponses(400, 404, 409, 503),
        },
      },
    },
    async (request) => {
      const access = accessOf(request);
      const video = await videoInReach(deps, access, request.params.videoID);
      if (video.deleted_at) throw new BadRequestError('already_deleted', `Video ${video.id} is already deleted.`);
      if (video.status === 'transcoding') {
        throw new ConflictError('processing_in_progress', `Video ${video.id} is still transcoding; delete it once it is ready or failed.`);
      }
      // The event's data: the details as they were, read before the video is gone from every read.
      const [renditions, served, captionTracks] = await Promise.all([
        listRenditions(deps.db, video.id),
        segmentsServedFor(deps, request, [video]),
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
        throw unavailable(request, error, 'starting the clean-up');
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
