// Captions from speech (docs/decisions/captions.md): POST .../captions/generate starts a track made
// from a ready video's speech by a node's speech engine (202; the track appears in GET .../captions
// with `source: "generated"`, and `video.caption.ready` goes out); GET .../transcript reads a track
// back as text, with its cue times in the JSON format. The transcript is the track's: a file uploaded
// in place of a generated track is the transcript from then on.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CaptionParseError, detectLanguage, parseWebVtt, transcriptOf } from '@kino/proto/contract';
import { listCaptionTracks } from '@kino/database/repositories';
import type { RouteOptions } from '../deps.ts';
import { liveVideoInReach } from '../videos/video-in-reach.ts';
import { accessOf } from '../plugins/access.ts';
import { ConflictError, NotFoundError, storageUnavailable } from '../http/errors.ts';
import { Envelope, errorResponses, StringEnum, Text, withExamples } from '../schemas/common.ts';
import { VideoParams } from '../schemas/videos.ts';
import { checkTranscribeLanguages } from '../videos/generated-subtitles.ts';
import { startGenerateCaptions } from '../videos/workflows.ts';
import { canonicalLanguage } from './captions.ts';

const GenerateBody = Type.Object({
  language: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9-]{1,35}$',
      default: detectLanguage,
      description:
        "A BCP 47 tag the farm's speech engines transcribe (the bundled Whisper tiny.en: `en` only), or `auto`: the language heard.",
    }),
  ),
});

const GenerateAnswer = Type.Object({
  language: Type.String({ description: 'As asked (`auto` until the engine has heard it).' }),
  status: StringEnum(['generating'] as const),
});

const TranscriptQuery = Type.Object({
  language: Type.Optional(
    Text({
      minLength: 1,
      maxLength: 64,
      description: "The track's language; default: the video's default track, else its first.",
    }),
  ),
  format: Type.Optional(
    StringEnum(['text', 'json'] as const, {
      default: 'text',
      description: '`text`: the words only, one cue a line; `json`: also each cue with its times.',
    }),
  ),
});

const TranscriptCue = Type.Object({
  startSeconds: Type.Number(),
  endSeconds: Type.Number(),
  text: Type.String(),
});

const TranscriptSchema = Type.Object({
  language: Type.String(),
  source: StringEnum(['uploaded', 'generated'] as const),
  text: Type.String({ description: "The track's words without markup, one cue a line." }),
  cues: Type.Optional(Type.Array(TranscriptCue, { description: 'Only with `format=json`.' })),
});

const exampleTranscript = {
  language: 'en',
  source: 'generated' as const,
  text: 'Welcome to the launch.\nToday we ship captions.',
  cues: [
    { startSeconds: 1, endSeconds: 2.4, text: 'Welcome to the launch.' },
    { startSeconds: 2.9, endSeconds: 4.6, text: 'Today we ship captions.' },
  ],
};

export const generatedCaptionRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/:orgID/videos/:publicID/captions/generate',
    {
      config: { rateLimit: 'video', validationCodes: { 'body.language': 'unsupported_language' } },
      schema: {
        tags: ['captions'],
        summary: "Make a caption track from the video's speech",
        operationId: 'generateCaptionTrack',
        description:
          "Transcribes the video's speech on a node with a speech engine for the language; the track then appears in the list " +
          'with `source: "generated"`, replacing the language\'s track (a file upload replaces it in turn), and ' +
          '`video.caption.ready` goes out. Asking again while it runs is the same run. Errors: 400 unsupported_language ' +
          "(naming body.language) for a language no node's engine transcribes; 409 video_not_ready until the video is ready.",
        params: VideoParams,
        body: withExamples(GenerateBody, { language: 'en' }),
        response: {
          202: Envelope(GenerateAnswer, { language: 'en', status: 'generating' }),
          ...errorResponses(400, 404, 409, 503),
        },
      },
    },
    async (request, reply) => {
      const video = await liveVideoInReach(deps, accessOf(request), request.params.publicID);
      if (video.status !== 'ready')
        throw new ConflictError(
          'video_not_ready',
          `Video ${video.id} is ${video.status}: captions are made from a ready video.`,
        );
      const [asked] = await checkTranscribeLanguages(
        deps,
        [{ language: request.body.language ?? detectLanguage }],
        () => 'body.language',
      );
      const started = await startGenerateCaptions(deps.temporal, { videoId: video.id, language: asked!.language });
      request.log.info({ videoId: video.id, language: asked!.language, started }, 'caption generation asked');
      return reply.code(202).send({ body: { language: asked!.language, status: 'generating' as const } });
    },
  );

  app.get(
    '/:orgID/videos/:publicID/transcript',
    {
      config: { rateLimit: 'video' },
      schema: {
        tags: ['captions'],
        summary: "A caption track's transcript",
        operationId: 'getTranscript',
        description:
          "The words of one of the video's caption tracks (generated or uploaded), without markup; with `format=json`, each cue " +
          'with its times. Errors: 404 caption_not_found when the video has no track (of that language).',
        params: VideoParams,
        querystring: TranscriptQuery,
        response: {
          200: Envelope(TranscriptSchema, exampleTranscript),
          ...errorResponses(400, 404, 503),
        },
      },
    },
    async (request) => {
      const video = await liveVideoInReach(deps, accessOf(request), request.params.publicID);
      const tracks = await listCaptionTracks(deps.db, video.id);
      const asked = request.query.language;
      const language = asked === undefined ? undefined : canonicalLanguage(asked);
      const track =
        asked === undefined
          ? (tracks.find((t) => t.is_default) ?? tracks[0])
          : tracks.find((t) => t.language === language);
      if (!track)
        throw new NotFoundError(
          'caption_not_found',
          asked === undefined
            ? `Video ${video.id} has no caption track.`
            : `Video ${video.id} has no caption track for "${asked}".`,
        );
      let file: Buffer | undefined;
      try {
        file = await deps.storage.get(track.storage_key);
      } catch (error) {
        storageUnavailable(error, request.log, 'reading a caption file');
      }
      if (!file)
        throw new NotFoundError(
          'caption_not_found',
          `The file of video ${video.id}'s "${track.language}" track is gone.`,
        );
      let transcript;
      try {
        // parseWebVtt, not parseCaptionFile: an upload must hold cues, but a generated track of a video
        // in which the engine heard no words (music, a tone) holds none, and its transcript is empty.
        transcript = transcriptOf(parseWebVtt(file.toString('utf8')), track);
      } catch (error) {
        // Stored files were parsed when they were stored: one that does not parse now is a bug.
        if (error instanceof CaptionParseError) throw new Error(`stored caption file does not parse: ${error.message}`);
        throw error;
      }
      const { cues: _cues, ...text } = transcript;
      return { body: request.query.format === 'json' ? transcript : text };
    },
  );
};
