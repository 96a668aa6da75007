// Caption tracks (docs/decisions/delivery.md#captions): POST uploads a WebVTT or SRT file for one
// language of a ready video (replacing that language's track), GET lists the tracks, DELETE removes
// one. The file is checked and stored as WebVTT under the video's prefix; delivery adds the
// subtitles group to the master playlist and cuts the file into segments at request time.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger } from 'fastify';
import { randomBase62 } from '@kino/infra';
import {
  captionContentTypes,
  captionFormats,
  captionMaxBytes,
  CaptionParseError,
  defaultCaptionLabel,
  objectKeys,
  parseCaptionFile,
  renderWebVtt,
} from '@kino/proto/contract';
import { deleteCaptionTrack, listCaptionTracks, putCaptionTrack } from '@kino/database/repositories';
import type { ApiDeps, RouteOptions } from '../deps.ts';
import { liveVideoInReach } from '../videos/video-in-reach.ts';
import { accessOf } from '../plugins/access.ts';
import {
  ConflictError,
  NotFoundError,
  PayloadTooLargeError,
  storageUnavailable,
  ValidationError,
} from '../http/errors.ts';
import { sendVideoEvent } from '../videos/video-events.ts';
import { Envelope, errorResponses, StringEnum, Text, TEXT_PATTERN, withExamples } from '../schemas/common.ts';
import { CaptionTrackSchema, exampleCaptionTrack, VideoParams } from '../schemas/videos.ts';
import { deliveryFileUrls, keyringFor, presentCaptionTracks } from '@kino/presenters';
import type { PlaybackKeyring } from '@kino/database/playback-keys';

const LANGUAGE_PATTERN = '^[A-Za-z0-9-]{1,35}$';

const CreateBody = Type.Object({
  language: Type.String({ pattern: LANGUAGE_PATTERN, description: 'A BCP 47 language tag: `en`, `pt-BR`.' }),
  label: Type.Optional(
    Text({
      minLength: 1,
      maxLength: 128,
      description: 'The name players show; default: the language in English ("Brazilian Portuguese").',
    }),
  ),
  format: Type.Optional(StringEnum(captionFormats, { default: 'vtt', description: 'SRT is converted to WebVTT.' })),
  content: Type.String({
    pattern: TEXT_PATTERN,
    description: `The file's text, at most ${captionMaxBytes} bytes of UTF-8.`,
  }),
  default: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Players show this track unless the viewer picks another; clears any other default.',
    }),
  ),
});

const TrackParams = Type.Object({ ...VideoParams.properties, language: Text({ minLength: 1, maxLength: 64 }) });

/** JSON escapes a line break as two characters: a 2 MB file of short lines is a little over 4 MB of body. */
const bodyLimit = 2 * captionMaxBytes + 64 * 1024;

/** The canonical form of a BCP 47 tag (`pt-br` → `pt-BR`), or undefined when it is not one. */
export function canonicalLanguage(tag: string): string | undefined {
  if (!new RegExp(LANGUAGE_PATTERN).test(tag)) return undefined;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical && new RegExp(LANGUAGE_PATTERN).test(canonical) ? canonical : undefined;
  } catch {
    return undefined;
  }
}

function invalidCaption(message: string, location: string, value: unknown): never {
  throw new ValidationError('invalid_caption', message, [{ message, location, value }]);
}

/** Removes a file no track points at any more; a failure leaves it to the video's deletion, which removes its whole prefix. */
async function removeCaptionFile(deps: ApiDeps, log: FastifyBaseLogger, key: string): Promise<void> {
  try {
    await deps.storage.delete(key);
  } catch (error) {
    log.warn({ err: error, key }, 'a caption file no track uses stays in storage');
  }
}

/** POST .../captions: the file checked and stored as WebVTT, its track put in place of any of the same language. */
async function storeCaptionTrack(
  deps: ApiDeps,
  keyring: PlaybackKeyring,
  log: FastifyBaseLogger,
  {
    access,
    publicID,
    body,
  }: { access: ReturnType<typeof accessOf>; publicID: string; body: Static<typeof CreateBody> },
) {
  const video = await liveVideoInReach(deps, access, publicID);
  if (video.status !== 'ready')
    throw new ConflictError(
      'video_not_ready',
      `Video ${video.id} is ${video.status}: captions are added to a ready video.`,
    );
  const language =
    canonicalLanguage(body.language) ??
    invalidCaption('language must be a BCP 47 language tag such as "en" or "pt-BR"', 'body.language', body.language);
  if (Buffer.byteLength(body.content, 'utf8') > captionMaxBytes) {
    throw new PayloadTooLargeError(`A caption file is at most ${captionMaxBytes} bytes.`);
  }
  const format = body.format ?? 'vtt';
  let text: string;
  try {
    text = renderWebVtt(parseCaptionFile(body.content, format));
  } catch (error) {
    if (!(error instanceof CaptionParseError)) throw error;
    invalidCaption(
      `The ${format === 'srt' ? 'SRT' : 'WebVTT'} file does not parse: ${error.message}`,
      'body.content',
      `line ${error.line}`,
    );
  }
  const key = objectKeys.caption(video.id, language, randomBase62(12));
  try {
    await deps.storage.put(key, text, captionContentTypes.vtt);
  } catch (error) {
    storageUnavailable(error, log, 'storing a caption file');
  }
  const { track, replacedKey } = await putCaptionTrack(deps.db, {
    videoId: video.id,
    language,
    label: body.label ?? defaultCaptionLabel(language),
    isDefault: body.default ?? false,
    source: 'uploaded',
    storageKey: key,
    sizeBytes: Buffer.byteLength(text, 'utf8'),
  });
  if (replacedKey) await removeCaptionFile(deps, log, replacedKey);
  log.info({ videoId: video.id, language, replaced: replacedKey !== undefined }, 'caption track stored');
  const [presented] = presentCaptionTracks(await deliveryFileUrls(keyring, deps.config.DELIVERY_URL, video), [track]);
  await sendVideoEvent(deps, log, { event: 'video.caption.ready', videoId: video.id });
  return presented!;
}

export const captionRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  const keyring = keyringFor(deps);

  app.post(
    '/:orgID/videos/:publicID/captions',
    {
      bodyLimit,
      config: {
        rateLimit: 'video',
        validationCodes: {
          'body.language': 'invalid_caption',
          'body.label': 'invalid_caption',
          'body.format': 'invalid_caption',
          'body.content': 'invalid_caption',
          'body.default': 'invalid_caption',
        },
      },
      schema: {
        tags: ['captions'],
        summary: 'Add or replace a caption track',
        operationId: 'createCaptionTrack',
        description:
          'One track per language: a second upload for a language replaces it. 400 invalid_caption names the line a file fails on; 409 video_not_ready until the video is ready.',
        params: VideoParams,
        body: withExamples(CreateBody, {
          language: 'en',
          label: 'English',
          format: 'vtt',
          content: 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nWelcome to the launch.\n',
          default: true,
        }),
        response: {
          200: Envelope(CaptionTrackSchema, exampleCaptionTrack),
          ...errorResponses(400, 404, 409, 413, 503),
        },
      },
    },
    async (request) => ({
      body: await storeCaptionTrack(deps, keyring, request.log, {
        access: accessOf(request),
        publicID: request.params.publicID,
        body: request.body,
      }),
    }),
  );

  app.get(
    '/:orgID/videos/:publicID/captions',
    {
      config: { rateLimit: 'video' },
      schema: {
        tags: ['captions'],
        summary: "List a video's caption tracks",
        operationId: 'listCaptionTracks',
        description:
          'Every caption track of the video, by language, each with the URL of its whole WebVTT file. Errors: 404 video_not_found.',
        params: VideoParams,
        response: {
          200: Envelope(Type.Object({ captions: Type.Array(CaptionTrackSchema) }), { captions: [exampleCaptionTrack] }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const video = await liveVideoInReach(deps, accessOf(request), request.params.publicID);
      const tracks = await listCaptionTracks(deps.db, video.id);
      return {
        body: {
          captions: presentCaptionTracks(await deliveryFileUrls(keyring, deps.config.DELIVERY_URL, video), tracks),
        },
      };
    },
  );

  app.delete(
    '/:orgID/videos/:publicID/captions/:language',
    {
      config: { rateLimit: 'video' },
      schema: {
        tags: ['captions'],
        summary: 'Remove a caption track',
        operationId: 'deleteCaptionTrack',
        description: 'Players stop offering it within seconds (playlists are cached for 10 s).',
        params: TrackParams,
        response: {
          200: Envelope(Type.Object({ language: Type.String(), status: StringEnum(['deleted'] as const) }), {
            language: 'en',
            status: 'deleted',
          }),
          ...errorResponses(404, 503),
        },
      },
    },
    async (request) => {
      const video = await liveVideoInReach(deps, accessOf(request), request.params.publicID);
      const language = canonicalLanguage(request.params.language);
      const removed = language ? await deleteCaptionTrack(deps.db, { videoId: video.id, language }) : undefined;
      if (!removed)
        throw new NotFoundError(
          'caption_not_found',
          `Video ${video.id} has no caption track for "${request.params.language}".`,
        );
      await removeCaptionFile(deps, request.log, removed.storage_key);
      request.log.info({ videoId: video.id, language: removed.language }, 'caption track removed');
      return { body: { language: removed.language, status: 'deleted' as const } };
    },
  );
};
