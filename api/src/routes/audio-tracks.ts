// Audio tracks added to a ready video (docs/decisions/encoding.md#audio): POST puts a track for one
// language from an uploaded file (replacing that language's track) and starts the workflow that
// makes its alternate audio rendition; GET lists the added tracks with their status; DELETE
// removes one. Delivery's master playlist offers a track once it is ready.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger } from 'fastify';
import { isAlternateAudioKey } from '@kino/proto/contract';
import {
  AudioRenditionsExhausted,
  deleteAudioTrack,
  findLiveVideoByStoragePath,
  findUpload,
  hasSoundInPictures,
  listAudioTracks,
  listRenditions,
  markAudioTrackFailed,
  putAudioTrack,
} from '@kino/database/repositories';
import type { AudioTrack, Video } from '@kino/database';
import type { ApiDeps, RouteOptions } from '../deps.ts';
import { liveVideoInReach } from '../videos/video-in-reach.ts';
import { startAddAudioTrack } from '../videos/workflows.ts';
import { accessOf } from '../plugins/access.ts';
import { ConflictError, NotFoundError, ValidationError, workflowServiceUnavailable } from '../http/errors.ts';
import { Envelope, errorResponses, StringEnum, Text, withExamples } from '../schemas/common.ts';
import { AudioTrackSchema, exampleAudioTrack, VideoParams } from '../schemas/videos.ts';
import { canonicalLanguage } from './captions.ts';

const CreateBody = Type.Object({
  storagePath: Text({
    minLength: 1,
    maxLength: 1024,
    description: "The bucketPath of an upload ticket of the video's environment: a file with an audio stream.",
  }),
  language: Text({ minLength: 1, maxLength: 64, description: 'A BCP 47 language tag: `es`, `pt-BR`.' }),
  name: Type.Optional(
    Text({
      minLength: 1,
      maxLength: 128,
      description: 'The name players show; default: the language in English ("Spanish").',
    }),
  ),
  default: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        "Players start with this track unless the viewer picks another; clears any other added track's default.",
    }),
  ),
});

const TrackParams = Type.Object({ ...VideoParams.properties, language: Text({ minLength: 1, maxLength: 64 }) });

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

function invalidAudioTrack(message: string, location: string, value: unknown): never {
  throw new ValidationError('invalid_audio_track', message, [{ message, location, value }]);
}

/** A track as the API answers it. */
export function presentAudioTrack(track: AudioTrack): Static<typeof AudioTrackSchema> {
  return {
    language: track.language,
    name: track.name,
    default: track.is_default,
    status: track.status,
    ...(track.status === 'failed' && track.failure_reason ? { reason: track.failure_reason } : {}),
  };
}

/**
 * 409 video_not_ready unless the video is ready with a complete ladder (a just-in-time video's
 * segments all made: a track is encoded to the video's measured length, and a video whose sound is
 * in its pictures has them copied); 409 audio_tracks_unsupported unless it offers its sound as
 * alternate audio renditions (a source with several tracks) or muxed in its pictures (one track:
 * the first track added separates it, docs/decisions/encoding.md#audio). An audio-only video and a
 * silent one have no audio group to join.
 */
async function assertTracksCanBeAdded(deps: ApiDeps, video: Video): Promise<void> {
  if (video.status !== 'ready')
    throw new ConflictError(
      'video_not_ready',
      `Video ${video.id} is ${video.status}: audio tracks are added to a ready video.`,
    );
  if (video.segments_pending)
    throw new ConflictError(
      'video_not_ready',
      `Video ${video.id} is still making its segments: audio tracks are added once they are all made. Try again in a moment.`,
    );
  const renditions = await listRenditions(deps.db, video.id);
  if (!renditions.some((r) => isAlternateAudioKey(r.key)) && !hasSoundInPictures(renditions))
    throw new ConflictError(
      'audio_tracks_unsupported',
      `Video ${video.id} has no picture or no sound: audio tracks are added to a video with both.`,
    );
}

/**
 * Removes the uploaded file of a track replaced or removed: its rendition is made (or never will
 * be), and a deleted video's content removal no longer sees it. Kept while a live video was made
 * from it or a track of the video still uses it; a failure leaves it in the bucket, logged.
 */
async function removeTrackFile(deps: ApiDeps, log: FastifyBaseLogger, videoId: string, storagePath: string) {
  if (await findLiveVideoByStoragePath(deps.db, storagePath)) return;
  if ((await listAudioTracks(deps.db, videoId)).some((t) => t.storage_path === storagePath)) return;
  try {
    await deps.storage.delete(storagePath);
  } catch (error) {
    log.warn({ err: error, videoId, storagePath }, 'the file of a replaced or removed audio track stays in storage');
  }
}

/** POST .../audio-tracks: the track put (processing) and its workflow started. */
async function addAudioTrack(
  deps: ApiDeps,
  log: FastifyBaseLogger,
  {
    access,
    publicID,
    body,
  }: { access: ReturnType<typeof accessOf>; publicID: string; body: Static<typeof CreateBody> },
): Promise<Static<typeof AudioTrackSchema>> {
  const video = await liveVideoInReach(deps, access, publicID);
  const language =
    canonicalLanguage(body.language) ??
    invalidAudioTrack('language must be a BCP 47 language tag such as "es" or "pt-BR"', 'body.language', body.language);
  await assertTracksCanBeAdded(deps, video);
  const upload = await findUpload(deps.db, { orgId: video.org_id, envId: video.env_id, bucketPath: body.storagePath });
  if (!upload)
    invalidAudioTrack(
      "storagePath is not an upload URL issued to the video's organization and environment",
      'body.storagePath',
      body.storagePath,
    );
  let put: Awaited<ReturnType<typeof putAudioTrack>>;
  try {
    put = await putAudioTrack(deps.db, {
      videoId: video.id,
      language,
      name: body.name ?? languageNames.of(language) ?? language,
      isDefault: body.default ?? false,
      storagePath: body.storagePath,
    });
  } catch (error) {
    if (error instanceof AudioRenditionsExhausted) throw new ConflictError('too_many_audio_tracks', error.message);
    throw error;
  }
  const { track } = put;
  try {
    await startAddAudioTrack(deps.temporal, { videoId: video.id, language, renditionKey: track.rendition_key });
  } catch (error) {
    await markAudioTrackFailed(deps.db, {
      videoId: video.id,
      language,
      renditionKey: track.rendition_key,
      reason: 'the workflow service was unavailable: add the track again',
    });
    throw workflowServiceUnavailable(error, log, 'starting an audio track');
  }
  log.info(
    { videoId: video.id, language, key: track.rendition_key, replaced: put.replaced !== undefined },
    'audio track started',
  );
  if (put.replaced) await removeTrackFile(deps, log, video.id, put.replaced.storage_path);
  return presentAudioTrack(track);
}

export const audioTrackRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/:orgID/videos/:publicID/audio-tracks',
    {
      config: {
        rateLimit: 'video',
        validationCodes: {
          'body.storagePath': 'invalid_audio_track',
          'body.language': 'invalid_audio_track',
          'body.name': 'invalid_audio_track',
          'body.default': 'invalid_audio_track',
        },
      },
      schema: {
        tags: ['audio tracks'],
        summary: 'Add or replace an audio track',
        operationId: 'createAudioTrack',
        description:
          "A second language for a ready video, from a file uploaded through an upload URL (its first audio stream, padded or cut to the video's duration). One added track per language: a second upload for a language replaces it. Answers 202 with the track `processing`; GET .../audio-tracks says when it is `ready` (the master playlist then offers it) or `failed` (a file with no audio stream, with the reason). 400 invalid_audio_track for a bad language or storagePath; 409 video_not_ready until the video is ready; 409 audio_tracks_unsupported for an audio-only or silent video. The first track added to a video whose sound is in its pictures (a source with one track) also makes that sound an alternate track and the pictures copies without it, once; the master then offers both.",
        params: VideoParams,
        body: withExamples(CreateBody, {
          storagePath: 'uploads/org_3fK9xQ2mLr7TzV1a/env_8HcPq4Ws0dYbN6eJ/upl_Jq7Vn2Xc5Bd8Kp4M/keynote-es.m4a',
          language: 'es',
          name: 'Spanish',
          default: false,
        }),
        response: {
          202: Envelope(AudioTrackSchema, exampleAudioTrack),
          ...errorResponses(400, 404, 409, 503),
        },
      },
    },
    async (request, reply) => {
      const body = await addAudioTrack(deps, request.log, {
        access: accessOf(request),
        publicID: request.params.publicID,
        body: request.body,
      });
      return reply.code(202).send({ body });
    },
  );

  app.get(
    '/:orgID/videos/:publicID/audio-tracks',
    {
      config: { rateLimit: 'video' },
      schema: {
        tags: ['audio tracks'],
        summary: "List a video's added audio tracks",
        operationId: 'listAudioTracks',
        description:
          "The tracks added to the video, by language, each with its status (a source's own tracks are in the master playlist). Errors: 404 video_not_found.",
        params: VideoParams,
        response: {
          200: Envelope(Type.Object({ audioTracks: Type.Array(AudioTrackSchema) }), {
            audioTracks: [{ ...exampleAudioTrack, status: 'ready' }],
          }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const video = await liveVideoInReach(deps, accessOf(request), request.params.publicID);
      return { body: { audioTracks: (await listAudioTracks(deps.db, video.id)).map(presentAudioTrack) } };
    },
  );

  app.delete(
    '/:orgID/videos/:publicID/audio-tracks/:language',
    {
      config: { rateLimit: 'video' },
      schema: {
        tags: ['audio tracks'],
        summary: 'Remove an added audio track',
        operationId: 'deleteAudioTrack',
        description:
          'The master playlist stops offering it within seconds; a viewer playing it keeps its segments. Errors: 404 video_not_found, 404 audio_track_not_found.',
        params: TrackParams,
        response: {
          200: Envelope(Type.Object({ language: Type.String(), status: StringEnum(['deleted'] as const) }), {
            language: 'es',
            status: 'deleted',
          }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const video = await liveVideoInReach(deps, accessOf(request), request.params.publicID);
      const language = canonicalLanguage(request.params.language);
      const removed = language ? await deleteAudioTrack(deps.db, { videoId: video.id, language }) : undefined;
      if (!removed)
        throw new NotFoundError(
          'audio_track_not_found',
          `Video ${video.id} has no added audio track for "${request.params.language}".`,
        );
      await removeTrackFile(deps, request.log, video.id, removed.storage_path);
      request.log.info({ videoId: video.id, language: removed.language }, 'audio track removed');
      return { body: { language: removed.language, status: 'deleted' as const } };
    },
  );
};
