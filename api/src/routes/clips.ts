// Clips (docs/decisions/delivery.md#clips): POST cuts a new video out of a ready one. A segment-accurate clip
// is made here, in the request, with no workflow: it encodes nothing, so making it is reading the
// source's playlists, inserting the clip and writing its own playlists, which name the source's
// segments under the clip's names (delivery maps them back, and logs them against the clip). The
// clip is `transcoding` while its playlists are written and `ready` when the call answers. A
// frame-accurate clip is inserted and its master playlist written here too; its first and last
// segments are encoded by the makeFrameAccurateClip workflow, which writes its media playlists and
// makes it ready: the call answers with the clip `transcoding`.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { newId } from '@kino/infra';
import {
  hlsContentTypes,
  hlsSegmentName,
  mediaPlaylistDurations,
  objectKeys,
  renderMediaPlaylist,
  selectClipSegments,
  clipCuts,
  type ClipSegments,
} from '@kino/proto/contract';
import type { Rendition, Video } from '@kino/database';
import { createClipVideo, deleteVideoRow, listRenditions, markClipReady } from '@kino/database/repositories';
import type { FastifyBaseLogger } from 'fastify';
import type { ApiDeps, RouteOptions } from '../deps.ts';
import { accessOf } from '../plugins/access.ts';
import { ConflictError, storageUnavailable, ValidationError, workflowServiceUnavailable } from '../http/errors.ts';
import { sendVideoEvent } from '../videos/video-events.ts';
import { startMakeFrameAccurateClip } from '../videos/workflows.ts';
import { Envelope, errorResponses, Text, withExamples } from '../schemas/common.ts';
import { VideoParams } from '../schemas/videos.ts';
import { liveVideoInReach } from '../videos/video-in-reach.ts';

const ClipBody = Type.Object({
  startTime: Type.Number({ minimum: 0, description: 'Seconds into the source where the clip starts.' }),
  // `minimum`, not `exclusiveMinimum: 0`: OpenAPI 3.0 reads exclusiveMinimum as a boolean beside a
  // minimum. endTime > startTime ≥ 0 is checked by the handler (400 invalid_clip_range).
  endTime: Type.Number({
    minimum: 0,
    description: "Seconds into the source where the clip ends: after startTime, at most the source's duration.",
  }),
  videoName: Type.Optional(
    Text({ minLength: 1, maxLength: 255, description: 'Default: the source\'s name with " (clip)".' }),
  ),
  allowPublicAccess: Type.Optional(Type.Boolean({ description: "Default: the source's." })),
  frameAccurate: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'false: the clip plays whole segments of the source (the range widened to segment boundaries) and is ready at once. ' +
        'true: it plays exactly from startTime to endTime; its first and last segments are encoded again, so it is transcoding until they are.',
    }),
  ),
});

/** A range ending this close past the duration is at the end (durations are measured, not exact). */
const durationTolerance = 0.001;

function invalidRange(message: string, location: string, value: unknown): never {
  throw new ValidationError('invalid_clip_range', message, [{ message, location, value }]);
}

/** The rendition's playlist in storage: its folder is named after the key (`720p`, `720p-av1`). */
function playlistKeyOf(videoId: string, rendition: Rendition): string {
  return objectKeys.renditionPlaylist(videoId, rendition.key);
}

/**
 * What a clip may be cut from, and its range: 409 video_not_ready unless the source is ready with a
 * complete ladder, 400 invalid_request from a clip that cannot be cut again, 400 invalid_clip_range
 * unless 0 ≤ startTime < endTime ≤ duration.
 */
export function assertClippable(
  source: Pick<
    Video,
    'id' | 'status' | 'segments_pending' | 'clip_own_segments' | 'clip_of_video_id' | 'duration_seconds'
  >,
  { startTime, endTime, frameAccurate }: { startTime: number; endTime: number; frameAccurate: boolean },
): void {
  if (source.status !== 'ready')
    throw new ConflictError(
      'video_not_ready',
      `Video ${source.id} is ${source.status}: clips are cut from a ready video.`,
    );
  // A clip plays its source's segments as they are: a just-in-time video's ladder must be complete first.
  if (source.segments_pending)
    throw new ConflictError(
      'video_not_ready',
      `Video ${source.id} is still making its segments: clips are cut from a complete ladder. Try again in a moment.`,
    );
  // A frame-accurate clip's end segments are its own objects and it has no original upload: a
  // clip of it would have to be cut from its source, which the caller can do (clipOf) as well.
  if (source.clip_own_segments.length > 0 || (frameAccurate && source.clip_of_video_id !== null)) {
    throw new ValidationError(
      'invalid_request',
      `Video ${source.id} is a clip: cut a frame-accurate clip, or any clip of one, from its source (clipOf.videoId), its range moved by clipOf.startTime.`,
      [{ message: 'the video is a clip', location: 'path.publicID', value: source.id }],
    );
  }
  if (startTime >= endTime) invalidRange('startTime must be before endTime', 'body.startTime', startTime);
  const duration = source.duration_seconds ?? 0;
  if (endTime > duration + durationTolerance)
    invalidRange(`endTime must be at most the video's duration (${duration} s)`, 'body.endTime', endTime);
}

/**
 * The source's master playlist and, per rendition, the segments the range overlaps. Every
 * rendition is cut on the same segment grid, so each selects the same segments.
 */
async function readSourcePlaylists(
  deps: Pick<ApiDeps, 'storage'>,
  log: FastifyBaseLogger,
  source: Video,
  renditions: Rendition[],
  startTime: number,
  endTime: number,
): Promise<{ master: Buffer; selections: ClipSegments[] }> {
  let master: Buffer | undefined;
  let playlists: (Buffer | undefined)[];
  try {
    [master, ...playlists] = await Promise.all([
      deps.storage.get(objectKeys.master(source.id)),
      ...renditions.map((rendition) => deps.storage.get(playlistKeyOf(source.id, rendition))),
    ]);
  } catch (error) {
    storageUnavailable(error, log, "reading a video's playlists");
  }
  if (!master || renditions.length === 0 || playlists.some((p) => !p)) {
    throw new Error(`ready video ${source.id} is missing a playlist in storage`);
  }
  const selections = playlists.map((playlist) => {
    try {
      return selectClipSegments(mediaPlaylistDurations(playlist!.toString('utf8')), startTime, endTime);
    } catch {
      return invalidRange('the range holds no segment of the video', 'body.startTime', startTime);
    }
  });
  const [first] = selections;
  if (
    selections.some((s) => s.firstSegment !== first!.firstSegment || s.durations.length !== first!.durations.length)
  ) {
    throw new Error(`the renditions of video ${source.id} are not cut on one segment grid`);
  }
  return { master, selections };
}

/**
 * The clip's master, and unless it is frame accurate (its workflow writes them) its media playlists
 * over the source's segments. A storage failure removes the clip's row and answers 503: never
 * reported, the clip goes (a playlist already written is orphaned under its own prefix).
 */
async function writeClipPlaylists(
  deps: ApiDeps,
  log: FastifyBaseLogger,
  clipId: string,
  {
    master,
    renditions,
    selections,
    frameAccurate,
  }: {
    master: Buffer;
    renditions: Rendition[];
    selections: Array<{ durations: number[] }>;
    frameAccurate: boolean;
  },
): Promise<void> {
  try {
    await deps.storage.put(objectKeys.master(clipId), master, hlsContentTypes.playlist);
    if (frameAccurate) return;
    for (const [index, rendition] of renditions.entries()) {
      const segments = selections[index]!.durations.map((durationSeconds, i) => ({
        name: hlsSegmentName(i),
        durationSeconds,
      }));
      await deps.storage.put(playlistKeyOf(clipId, rendition), renderMediaPlaylist(segments), hlsContentTypes.playlist);
    }
  } catch (error) {
    await deleteVideoRow(deps.db, clipId);
    storageUnavailable(error, log, "writing a clip's playlists");
  }
}

export const clipRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/:orgID/videos/:publicID/clips',
    {
      config: {
        rateLimit: 'video',
        validationCodes: {
          'body.startTime': 'invalid_clip_range',
          'body.endTime': 'invalid_clip_range',
          'body.videoName': 'invalid_request',
          'body.allowPublicAccess': 'invalid_request',
          'body.frameAccurate': 'invalid_request',
        },
      },
      schema: {
        tags: ['videos'],
        operationId: 'createClip',
        summary: 'Cut a clip out of a ready video',
        description:
          "The clip is a new video in the same environment. It plays the source's segments that overlap [startTime, endTime) " +
          'without copying or encoding them, is ready when the call answers, and stays playable after the source is deleted. ' +
          'With frameAccurate it plays exactly [startTime, endTime): its first and last segments are encoded again (the ones between ' +
          "stay the source's), it is transcoding until then, and video.processing.completed is sent when it is ready. " +
          'A frame-accurate clip cannot be cut from a clip. ' +
          '400 invalid_clip_range unless 0 ≤ startTime < endTime ≤ duration; 409 video_not_ready until the source is ready (and, for a video published just in time, until its ladder is complete).',
        params: VideoParams,
        body: withExamples(ClipBody, { startTime: 30, endTime: 45, videoName: 'The best 15 seconds' }),
        response: {
          200: Envelope(Type.Object({ videoID: Type.String() }), { videoID: 'vid_8Hk2Qw9ZrT4nLm1C' }),
          ...errorResponses(400, 404, 409, 503),
        },
      },
    },
    async (request) => {
      const source = await liveVideoInReach(deps, accessOf(request), request.params.publicID);
      const { startTime, endTime } = request.body;
      const frameAccurate = request.body.frameAccurate ?? false;
      assertClippable(source, { startTime, endTime, frameAccurate });

      const renditions = await listRenditions(deps.db, source.id);
      const { master, selections } = await readSourcePlaylists(
        deps,
        request.log,
        source,
        renditions,
        startTime,
        endTime,
      );
      const first = selections[0]!;

      const clipId = newId('vid');
      const clip = await createClipVideo(deps.db, {
        id: clipId,
        sourceId: source.id,
        name: request.body.videoName ?? `${source.name} (clip)`.slice(0, 255),
        allowPublicAccess: request.body.allowPublicAccess ?? source.allow_public_access,
        startSeconds: startTime,
        endSeconds: endTime,
        // A clip of a clip plays the first clip's media video: its segments are numbered from that one's.
        mediaVideoId: source.clip_media_video_id ?? source.id,
        firstSegment: (source.clip_first_segment ?? 0) + first.firstSegment,
        ...(frameAccurate ? { ownSegments: [...new Set([0, first.durations.length - 1])] } : {}),
      });
      if (!clip) throw new ConflictError('video_not_ready', `Video ${source.id} is no longer ready.`);

      await writeClipPlaylists(deps, request.log, clipId, { master, renditions, selections, frameAccurate });
      if (frameAccurate) {
        try {
          await startMakeFrameAccurateClip(deps.temporal, {
            videoId: clipId,
            sourceVideoId: source.id,
            cuts: clipCuts(first, startTime, endTime),
          });
        } catch (error) {
          await deleteVideoRow(deps.db, clipId);
          throw workflowServiceUnavailable(error, request.log, 'starting the clip');
        }
        request.log.info(
          {
            videoId: clipId,
            sourceId: source.id,
            firstSegment: clip.clip_first_segment,
            segments: first.durations.length,
          },
          'frame-accurate clip started',
        );
        await sendVideoEvent(deps, request.log, { event: 'video.created', videoId: clipId });
        return { body: { videoID: clipId } };
      }
      await markClipReady(deps.db, clipId, source, {
        durationSeconds: first.spanSeconds,
        segmentCount: first.durations.length,
      });
      request.log.info(
        {
          videoId: clipId,
          sourceId: source.id,
          firstSegment: clip.clip_first_segment,
          segments: first.durations.length,
        },
        'clip made',
      );
      await sendVideoEvent(deps, request.log, { event: 'video.created', videoId: clipId });
      return { body: { videoID: clipId } };
    },
  );
};
