import { sql } from 'kysely';
import { dynamicRanges, hlsSegmentSeconds, isOneOf, objectKeys, type DynamicRange } from '@kino/proto/contract';
import type { Db } from '../database.ts';
import type { EncodingParameters, Video, VideoQuality, VideoStatus } from '../schema.ts';
import { listRenditions, replaceRenditions, type NewRendition } from './renditions.ts';
import { countLiveVideos } from './video-counts.ts';
import { LISTED_COLUMNS, liveVideosNamed } from './video-search.ts';

export interface CreateVideoInput {
  id: string;
  orgId: string;
  envId: string;
  name: string;
  storagePath: string;
  /** A URL ingest's source address: the workflow fetches it into storagePath first. */
  sourceUrl?: string;
  /** A broadcast's video: the live stream it records (issue 56). */
  liveStreamId?: string;
  videoQuality: VideoQuality;
  allowPublicAccess: boolean;
  parameters: EncodingParameters;
}

/** PostgreSQL's (and PGlite's) unique_violation: here, a live video already uses the storage path. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

/** A new video's row: `transcoding`, nothing known of its source yet. */
function newVideoRow(input: CreateVideoInput) {
  return {
    id: input.id,
    org_id: input.orgId,
    env_id: input.envId,
    name: input.name,
    description: null,
    status: 'transcoding' as const,
    failure_reason: null,
    storage_path: input.storagePath,
    source_url: input.sourceUrl ?? null,
    live_stream_id: input.liveStreamId ?? null,
    video_quality: input.videoQuality,
    allow_public_access: input.allowPublicAccess,
    parameters: JSON.stringify(input.parameters),
    duration_seconds: null,
    source_width: null,
    source_height: null,
    source_frame_rate: null,
    thumbnail_key: null,
    ready_at: null,
    deleted_at: null,
    delete_reason: null,
  };
}

/** Creates a video in `transcoding`. Throws a unique violation when a live video already has this path. */
export async function createVideo(db: Db, input: CreateVideoInput): Promise<Video> {
  return db.insertInto('videos').values(newVideoRow(input)).returningAll().executeTakeFirstOrThrow();
}

export interface CreateClipInput {
  id: string;
  /** The video cut from: live and ready, or nothing is created. */
  sourceId: string;
  name: string;
  allowPublicAccess: boolean;
  startSeconds: number;
  endSeconds: number;
  /** The video whose segments the clip plays, and which of them is the clip's first. */
  mediaVideoId: string;
  firstSegment: number;
  /** A frame-accurate clip's segments that are its own objects (encoded for it): its first and last. */
  ownSegments?: number[];
}

/**
 * Creates a clip in `transcoding`, in the source's organization and environment and with its
 * settings. The source's row is locked for the insert: a delete of the source waits for it, so the
 * source's clean-up always sees the clip (and keeps the media it plays). Undefined, and nothing
 * created, when the source is no longer live and ready.
 */
export async function createClipVideo(db: Db, input: CreateClipInput): Promise<Video | undefined> {
  return db.transaction().execute(async (trx) => {
    const source = await trx
      .selectFrom('videos')
      .selectAll()
      .where('id', '=', input.sourceId)
      .where('status', '=', 'ready')
      .where('deleted_at', 'is', null)
      .forShare()
      .executeTakeFirst();
    if (!source) return undefined;
    return trx
      .insertInto('videos')
      .values({
        ...newVideoRow({
          id: input.id,
          orgId: source.org_id,
          envId: source.env_id,
          name: input.name,
          // Unique among live videos and never an object: a clip has no original of its own.
          storagePath: objectKeys.videoPrefix(input.id),
          videoQuality: source.video_quality,
          allowPublicAccess: input.allowPublicAccess,
          parameters: source.parameters,
        }),
        clip_of_video_id: source.id,
        clip_start_seconds: input.startSeconds,
        clip_end_seconds: input.endSeconds,
        clip_media_video_id: input.mediaVideoId,
        clip_first_segment: input.firstSegment,
        clip_own_segments: input.ownSegments ?? [],
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/** Whether a live clip plays `mediaVideoId`'s segments (its objects must then stay). */
export async function hasLiveClips(db: Db, mediaVideoId: string): Promise<boolean> {
  const row = await db
    .selectFrom('videos')
    .select('id')
    .where('clip_media_video_id', '=', mediaVideoId)
    .where('deleted_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** A video by id, deleted or not. */
export async function getVideo(db: Db, id: string): Promise<Video | undefined> {
  return db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The live (not deleted) video made from an uploaded object, if any. */
export async function findLiveVideoByStoragePath(db: Db, storagePath: string): Promise<Video | undefined> {
  return db
    .selectFrom('videos')
    .selectAll()
    .where('storage_path', '=', storagePath)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Removes a video row outright: only to undo a create whose workflow could not start. */
export async function deleteVideoRow(db: Db, id: string): Promise<void> {
  await db.deleteFrom('videos').where('id', '=', id).execute();
}

export type VideoSortField = 'created_at' | 'name' | 'duration' | 'status';

export interface ListVideosQuery {
  orgId: string;
  /** Limits the list to one environment; omitted lists the whole organization. */
  envId?: string;
  page: number;
  pageSize: number;
  sortBy: VideoSortField;
  sortDir: 'asc' | 'desc';
  status?: VideoStatus;
  /** Case-insensitive substring of the name; `%` and `_` match themselves. */
  search?: string;
  /** Created at or after this instant. */
  createdFrom?: Date;
  /** Created before this instant. */
  createdBefore?: Date;
  /** The application's own id (metadata.externalId), exactly. */
  externalId?: string;
  /** A live stream's broadcasts: the videos recorded from it. */
  liveStreamId?: string;
}

/**
 * One page of live videos and the exact number that match. Every shape reads an index made for it
 * (db/migrations/concurrent-indexes.ts): the page's ids come from an index-only scan, so a deep OFFSET
 * skips index entries rather than rows, and only the page's own rows are read from the table. The
 * total comes from `video_counts` unless a search or a date range narrows the list; then it counts
 * the matches through the same indexes (its cost grows with the number of matches, not the library).
 * A search reads `video_search` instead of `videos`: the same live videos and listed columns, narrow
 * and with names folded, so each match the trigram index finds costs less to check.
 */
export async function listVideos(db: Db, query: ListVideosQuery): Promise<{ videos: Video[]; total: number }> {
  // A search reads video_search. Both sources give the same columns, so the rest of the query is
  // written once (PostgreSQL flattens the subquery: each reads its own indexes).
  const source = query.search
    ? liveVideosNamed(db, query.search)
    : db
        .selectFrom('videos')
        .select([...LISTED_COLUMNS, sql<string>`lower(name)`.as('name_folded')])
        .where('deleted_at', 'is', null);
  let filtered = db.selectFrom(source.as('listed'));
  // An environment's list filters on env_id alone (its indexes lead with it); the environment was
  // resolved within the organization, and the page's rows are checked against org_id below anyway.
  filtered = query.envId ? filtered.where('env_id', '=', query.envId) : filtered.where('org_id', '=', query.orgId);
  if (query.status) filtered = filtered.where('status', '=', query.status);
  if (query.createdFrom) filtered = filtered.where('created_at', '>=', query.createdFrom);
  if (query.createdBefore) filtered = filtered.where('created_at', '<', query.createdBefore);
  if (query.externalId !== undefined) {
    // Not among the listed columns (video_search has no copy): the few videos holding the id, from its index.
    const holding = db
      .selectFrom('videos')
      .select('id')
      .where('org_id', '=', query.orgId)
      .where('external_id', '=', query.externalId)
      .where('deleted_at', 'is', null);
    filtered = filtered.where('id', 'in', holding);
  }
  if (query.liveStreamId !== undefined) {
    // Likewise: a stream's broadcasts, from their index.
    const broadcasts = db
      .selectFrom('videos')
      .select('id')
      .where('live_stream_id', '=', query.liveStreamId)
      .where('org_id', '=', query.orgId)
      .where('deleted_at', 'is', null);
    filtered = filtered.where('id', 'in', broadcasts);
  }

  const direction = query.sortDir === 'asc' ? sql`asc` : sql`desc`;
  const sortExpression = {
    created_at: sql`created_at ${direction}`,
    // Names are never null: the default null order keeps `lower(name)` read straight off its index both ways.
    name: sql`name_folded ${direction}`,
    // Videos still transcoding have no duration yet: they sort last either way.
    duration: sql`duration_seconds ${direction} nulls last`,
    status: sql`status ${direction}`,
  }[query.sortBy];

  const pageIds = filtered
    .select('id')
    .orderBy(sortExpression)
    .orderBy('created_at', query.sortDir)
    .orderBy('id', query.sortDir)
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize);
  const countMatches = async () => {
    const narrowed =
      query.search ||
      query.createdFrom ||
      query.createdBefore ||
      query.externalId !== undefined ||
      query.liveStreamId !== undefined;
    if (!narrowed) {
      return countLiveVideos(db, { orgId: query.orgId, envId: query.envId, status: query.status });
    }
    const row = await filtered.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    return Number(row.total);
  };
  const [page, total] = await Promise.all([
    sql<Video>`
      select v.* from unnest(array(${pageIds})) with ordinality as page(id, position)
      join videos v on v.id = page.id and v.org_id = ${query.orgId}
      order by page.position`.execute(db),
    countMatches(),
  ]);
  return { videos: page.rows, total };
}

/** What PATCH may change; an absent field stays, a null one (description, metadata) is cleared. */
export interface VideoChanges {
  name?: string;
  description?: string | null;
  allowPublicAccess?: boolean;
  externalId?: string | null;
  creatorId?: string | null;
  passthrough?: string | null;
}

/** Applies `changes` to a live video: the row after, or undefined when there is no live video by that id. */
export async function updateVideo(db: Db, id: string, changes: VideoChanges): Promise<Video | undefined> {
  const columns = {
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    ...(changes.allowPublicAccess !== undefined ? { allow_public_access: changes.allowPublicAccess } : {}),
    ...(changes.externalId !== undefined ? { external_id: changes.externalId } : {}),
    ...(changes.creatorId !== undefined ? { creator_id: changes.creatorId } : {}),
    ...(changes.passthrough !== undefined ? { passthrough: changes.passthrough } : {}),
  };
  return db
    .updateTable('videos')
    .set({ ...columns, updated_at: sql`now()` })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Soft-deletes a live video; undefined when it was already deleted (or a concurrent delete won). */
export async function markVideoDeleted(db: Db, id: string, reason: string | null): Promise<Video | undefined> {
  return db
    .updateTable('videos')
    .set({ deleted_at: sql`now()`, delete_reason: reason, updated_at: sql`now()` })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Undoes a soft delete whose clean-up workflow could not start. */
export async function undoVideoDeleted(db: Db, id: string): Promise<void> {
  await db
    .updateTable('videos')
    .set({ deleted_at: null, delete_reason: null, updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

/**
 * Sends a failed video back to `transcoding` for a retry: clears the failure and the renditions of
 * the failed run. Undefined when the video is not (or no longer) failed.
 */
export async function resetFailedVideoForRetry(
  db: Db,
  id: string,
): Promise<{ video: Video; failureReason: string | null } | undefined> {
  return db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('videos')
      .select('failure_reason')
      .where('id', '=', id)
      .where('status', '=', 'failed')
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!before) return undefined;
    const video = await trx
      .updateTable('videos')
      .set({ status: 'transcoding', failure_reason: null, ready_at: null, updated_at: sql`now()` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx.deleteFrom('renditions').where('video_id', '=', id).execute();
    return { video, failureReason: before.failure_reason };
  });
}

/** What probing found about the source, recorded when the video becomes ready. */
export interface VideoSource {
  durationSeconds: number;
  width: number;
  height: number;
  frameRate: number;
  /** Absent or empty: not known (a probe from before it was read). */
  dynamicRange?: string;
}

/** The source's dynamic range as recorded: null when its probe did not say (a node before it was read). */
function dynamicRangeOf({ dynamicRange }: VideoSource): DynamicRange | null {
  return dynamicRange !== undefined && isOneOf(dynamicRanges, dynamicRange) ? dynamicRange : null;
}

/**
 * Records the ladder and the source and makes the video `ready`, in one transaction. False (and
 * nothing changed) when the video is gone or deleted. The one rule is "not deleted", not "still
 * transcoding": an activity retried after its commit must read true again, or the workflow would
 * take the ready video for a deleted one and remove its files. A second call replaces the ladder.
 */
export async function markVideoReady(
  db: Db,
  videoId: string,
  {
    source,
    renditions,
    thumbnailKey,
    storyboardKey = null,
    audioKey = null,
    segmentsPending = false,
  }: {
    source: VideoSource;
    renditions: NewRendition[];
    thumbnailKey: string | null;
    storyboardKey?: string | null;
    audioKey?: string | null;
    /** Ready with segments still to make (just in time); false when the ladder is complete. */
    segmentsPending?: boolean;
  },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const video = await trx
      .selectFrom('videos')
      .select(['deleted_at'])
      .where('id', '=', videoId)
      .forUpdate()
      .executeTakeFirst();
    if (!video || video.deleted_at) return false;
    await replaceRenditions(trx, videoId, renditions);
    await trx
      .updateTable('videos')
      .set({
        status: 'ready',
        failure_reason: null,
        duration_seconds: source.durationSeconds,
        source_width: source.width,
        source_height: source.height,
        source_frame_rate: source.frameRate,
        source_dynamic_range: dynamicRangeOf(source),
        thumbnail_key: thumbnailKey,
        storyboard_key: storyboardKey,
        audio_key: audioKey,
        segments_pending: segmentsPending,
        // A just-in-time video became ready with its first segments: completing its ladder keeps that time.
        ready_at: sql`case when status = 'ready' and segments_pending then ready_at else now() end`,
        updated_at: sql`now()`,
      })
      .where('id', '=', videoId)
      .execute();
    return true;
  });
}

/**
 * Makes a clip `ready` with its source's ladder (a clip's renditions are its source's, cut), the
 * source's picture size, frame rate and thumbnail, and its own duration and segment count. False
 * when the clip was deleted meanwhile (markVideoReady).
 */
export async function markClipReady(
  db: Db,
  clipId: string,
  source: Pick<
    Video,
    'id' | 'source_width' | 'source_height' | 'source_frame_rate' | 'source_dynamic_range' | 'thumbnail_key'
  >,
  { durationSeconds, segmentCount }: { durationSeconds: number; segmentCount: number },
): Promise<boolean> {
  const renditions = await listRenditions(db, source.id);
  return markVideoReady(db, clipId, {
    source: {
      durationSeconds,
      width: source.source_width ?? 0,
      height: source.source_height ?? 0,
      frameRate: source.source_frame_rate ?? 0,
      ...(source.source_dynamic_range ? { dynamicRange: source.source_dynamic_range } : {}),
    },
    renditions: renditions.map(({ created_at: _created, ...rendition }) => ({
      ...rendition,
      video_id: clipId,
      segment_count: segmentCount,
    })),
    thumbnailKey: source.thumbnail_key,
  });
}

/**
 * `transcoding` → `failed` with a reason a user can read, and the renditions of the failed run go.
 * So does a just-in-time video that is `ready` while its ladder is still being made
 * (`segments_pending`): a segment it cannot make fails it. False (nothing changed) for any other
 * video. The guards are the rule: a complete ready video never turns failed (its viewers keep it),
 * a deleted video is left as it was, and a retried call after a commit changes nothing (the first
 * reason stays).
 */
export async function markVideoFailed(db: Db, id: string, reason: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('videos')
      .set({ status: 'failed', failure_reason: reason, segments_pending: false, updated_at: sql`now()` })
      .where('id', '=', id)
      // A just-in-time video is ready before its ladder is complete: a segment it cannot make fails it.
      .where((eb) =>
        eb.or([
          eb('status', '=', 'transcoding'),
          eb.and([eb('status', '=', 'ready'), eb('segments_pending', '=', true)]),
        ]),
      )
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await trx.deleteFrom('renditions').where('video_id', '=', id).execute();
    return true;
  });
}

export type PlayableVideoRow = Pick<
  Video,
  | 'id'
  | 'org_id'
  | 'env_id'
  | 'name'
  | 'source_width'
  | 'source_height'
  | 'allow_public_access'
  | 'thumbnail_key'
  | 'storyboard_key'
  | 'audio_key'
  | 'clip_media_video_id'
  | 'clip_first_segment'
  | 'clip_own_segments'
  | 'segments_pending'
  | 'master_key'
  | 'status'
>;

/**
 * A video delivery may serve: ready and not deleted, or a broadcast's being recorded (issue 56:
 * `transcoding` with its live stream, its playlists growing). Anything else reads as "no such video".
 */
export async function findPlayableVideo(db: Db, id: string): Promise<PlayableVideoRow | undefined> {
  return db
    .selectFrom('videos')
    .select([
      'id',
      'org_id',
      'env_id',
      'name',
      'source_width',
      'source_height',
      'allow_public_access',
      'thumbnail_key',
      'storyboard_key',
      'audio_key',
      'clip_media_video_id',
      'clip_first_segment',
      'clip_own_segments',
      'segments_pending',
      'master_key',
      'status',
    ])
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'ready'),
        eb.and([eb('status', '=', 'transcoding'), eb('live_stream_id', 'is not', null)]),
      ]),
    )
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Where a video's pictures of any moment come from (delivery's `/t/{id}/<w>x<h>.jpg?time=`). */
export interface PictureSourceRow {
  /** The uploaded source object: a clip's is its media video's (the original it plays). */
  storagePath: string;
  /** Where the video's time 0 is in that source: 0 for an original; a clip's first frame's time. */
  offsetSeconds: number;
  /** The video's own duration (a clip's is what it plays). */
  durationSeconds: number | null;
  sourceDynamicRange: Video['source_dynamic_range'];
}

/** Clips of clips nest; a chain longer than this is not followed (none is made that deep). */
const maxClipDepth = 16;

const pictureColumns = [
  'storage_path',
  'duration_seconds',
  'source_dynamic_range',
  'clip_of_video_id',
  'clip_start_seconds',
  'clip_media_video_id',
  'clip_first_segment',
  'clip_own_segments',
  'deleted_at',
] as const;

/**
 * The source a video's frame at any moment is taken from, and where the video starts in it. An
 * original: its own source, from 0. A clip plays its media video's segments (the original; a clip of
 * a clip plays the same original): its time 0 is the start of the first one it plays
 * (`clip_first_segment` on the 6 s grid), unless that first segment is its own (a frame-accurate
 * start, re-encoded from `clip_start_seconds` of the video it was cut from, whose own start adds).
 * Undefined when a video of the chain is gone, or the media video was deleted (its upload with it).
 */
export async function findPictureSource(db: Db, videoId: string): Promise<PictureSourceRow | undefined> {
  const read = (id: string) => db.selectFrom('videos').select(pictureColumns).where('id', '=', id).executeTakeFirst();
  const video = await read(videoId);
  if (!video) return undefined;
  const media = video.clip_media_video_id === null ? video : await read(video.clip_media_video_id);
  if (!media || media.deleted_at !== null) return undefined;
  let offsetSeconds = 0;
  let clip: typeof video | undefined = video;
  for (let depth = 0; clip && clip.clip_of_video_id !== null; depth += 1) {
    if (depth === maxClipDepth) return undefined;
    if (!clip.clip_own_segments.includes(0)) {
      offsetSeconds += (clip.clip_first_segment ?? 0) * hlsSegmentSeconds;
      break;
    }
    offsetSeconds += clip.clip_start_seconds ?? 0;
    clip = await read(clip.clip_of_video_id);
    if (!clip) return undefined;
  }
  return {
    storagePath: media.storage_path,
    offsetSeconds,
    durationSeconds: video.duration_seconds,
    sourceDynamicRange: media.source_dynamic_range,
  };
}

/** Makes a stored thumbnail the default of a ready, not deleted video; false when it is neither. */
export async function setDefaultThumbnail(db: Db, videoId: string, thumbnailKey: string): Promise<boolean> {
  const result = await db
    .updateTable('videos')
    .set({ thumbnail_key: thumbnailKey })
    .where('id', '=', videoId)
    .where('status', '=', 'ready')
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface EnvironmentVideoUsage {
  envId: string;
  /** Videos that exist (not deleted). */
  totalVideos: number;
  totalDurationSeconds: number;
  /** Videos created at or after `since`, deleted since or not: uploads are events. */
  uploadedSince: number;
  /** The first video ever created in the environment, deleted or not. */
  firstUploadedAt: Date | null;
}

/** Per environment of an organization (or of the given ones): what the usage record takes from PostgreSQL. */
export async function videoUsageByEnvironment(
  db: Db,
  { orgId, envIds, since, before }: { orgId: string; envIds: string[]; since: Date; before?: Date },
): Promise<Map<string, EnvironmentVideoUsage>> {
  if (envIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('videos')
    .where('org_id', '=', orgId)
    .where('env_id', 'in', envIds)
    .select((eb) => [
      'env_id',
      sql<string>`count(*) filter (where deleted_at is null)`.as('total_videos'),
      sql<string | null>`sum(duration_seconds) filter (where deleted_at is null)`.as('total_duration'),
      (before
        ? sql<string>`count(*) filter (where created_at >= ${since} and created_at < ${before})`
        : sql<string>`count(*) filter (where created_at >= ${since})`
      ).as('uploaded_since'),
      eb.fn.min('created_at').as('first_uploaded_at'),
    ])
    .groupBy('env_id')
    .execute();
  return new Map(
    rows.map((row) => [
      row.env_id,
      {
        envId: row.env_id,
        totalVideos: Number(row.total_videos),
        totalDurationSeconds: Number(row.total_duration ?? 0),
        uploadedSince: Number(row.uploaded_since),
        firstUploadedAt: row.first_uploaded_at ? new Date(row.first_uploaded_at) : null,
      },
    ]),
  );
}

export interface StoredVideoDurations {
  totalVideos: number;
  totalDurationSeconds: number;
  byQuality: Record<VideoQuality, number>;
}

/** Videos that exist (not deleted) and their durations per quality preset: the storage record. */
export async function storedVideoDurations(
  db: Db,
  { orgId, envId }: { orgId: string; envId?: string },
): Promise<StoredVideoDurations> {
  let query = db.selectFrom('videos').where('org_id', '=', orgId).where('deleted_at', 'is', null);
  if (envId) query = query.where('env_id', '=', envId);
  const rows = await query
    .select([
      'video_quality',
      sql<string>`count(*)`.as('videos'),
      sql<string | null>`sum(duration_seconds)`.as('duration'),
    ])
    .groupBy('video_quality')
    .execute();
  const byQuality: Record<VideoQuality, number> = { standard: 0, high: 0, ultra: 0 };
  let totalVideos = 0;
  for (const row of rows) {
    byQuality[row.video_quality] = Number(row.duration ?? 0);
    totalVideos += Number(row.videos);
  }
  return { totalVideos, totalDurationSeconds: byQuality.standard + byQuality.high + byQuality.ultra, byQuality };
}
