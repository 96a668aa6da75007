// The options of `videos/process` beside its source, which `videos/ingest` takes too: the quality
// preset, access, name and the encoding parameters (each optional, at its default).
import { Type } from '@sinclair/typebox';
import {
  additionalVideoCodecs,
  audioCodecs,
  compressionRatios,
  defaultEncodingParameters as defaults,
  encodingParameterNames,
  encodingModes,
  maxEdgeLengths,
  hardwareEncodingModes,
  maxFrameRateLimit,
  nodeLabelPattern,
  pixelFormats,
  rateControlModes,
  videoQualities,
} from '@kino/proto/contract';
import { IntegerEnum, StringEnum, Text } from '../../schemas/common.ts';
import { watermarkRequestSchema } from '../../schemas/watermarks.ts';

/** The options of `videos/process` beside the source: `videos/ingest` takes them all. */
export function processOptions() {
  return {
    videoQuality: StringEnum(videoQualities),
    allowPublicAccess: Type.Boolean(),
    videoName: Type.Optional(Text({ minLength: 1, maxLength: 255, description: 'Default: the uploaded file name.' })),
    maxEdgeLength: Type.Optional(
      IntegerEnum(maxEdgeLengths, { default: defaults.maxEdgeLength, description: '-1: no limit.' }),
    ),
    maxFrameRate: Type.Optional(
      Type.Integer({
        minimum: -1,
        maximum: maxFrameRateLimit,
        default: defaults.maxFrameRate,
        description: `-1 (auto) or 1..${maxFrameRateLimit}.`,
      }),
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
    hardwareEncoding: Type.Optional(
      StringEnum(hardwareEncodingModes, {
        description:
          "`allowed`: a node with a working hardware encoder (NVENC, VA-API, Quick Sync) of a rendition's codec may use it, " +
          "under x264's rate and keyframe rules; `never`: software only. Default: the environment's setting (`never` unless set).",
      }),
    ),
    nodeLabels: Type.Optional(
      Type.Array(Type.String({ pattern: nodeLabelPattern, maxLength: 100 }), {
        uniqueItems: true,
        maxItems: 16,
        default: defaults.nodeLabels,
        description:
          "Labels every encode node of this video must carry (`acme`: a customer's own nodes; `name=value` too). " +
          "While no live node carries them all, the video's encodes wait, and its details say why (`waitingFor`).",
      }),
    ),
    generatedSubtitles: Type.Optional(
      Type.Array(
        Type.Object({
          language: Type.Optional(
            Type.String({
              pattern: '^[A-Za-z0-9-]{1,35}$',
              default: 'auto',
              description:
                "A BCP 47 tag the farm's speech engines transcribe (the bundled Whisper tiny.en: `en` only), or `auto`: the language heard.",
            }),
          ),
          label: Type.Optional(
            Text({ minLength: 1, maxLength: 128, description: 'Default: the language in English.' }),
          ),
        }),
        {
          maxItems: 8,
          description:
            'Caption tracks to make from the speech once the video is ready, each `source: "generated"` and replaced like any ' +
            'track by a file upload; `video.caption.ready` when each is there. 400 unsupported_language for a language no ' +
            "node's speech engine transcribes.",
        },
      ),
    ),
    watermark: Type.Optional(
      watermarkRequestSchema(
        'An image of the environment burnt into every rendition (and so every MP4 download), at its position, its width and ' +
          "margins shares of the picture: the same look at every rung. Default: the environment's `watermark`, if any.",
      ),
    ),
  };
}

/** The named code of a validation error in an encoding parameter. */
export const encodingParameterCodes: Record<string, string> = Object.fromEntries(
  [...encodingParameterNames, 'watermark', 'generatedSubtitles'].map((field) => [
    `body.${field}`,
    'invalid_parameters',
  ]),
);
