// The video resources of the spec: list item, details, ladder entry, pagination; the paths naming a video.
import { Type, type Static } from '@sinclair/typebox';
import { Id, StringEnum } from './common.ts';
import { WatermarkSchema } from './watermarks.ts';
import {
  hardwareEncodingModes,
  additionalVideoCodecs,
  dynamicRanges,
  encodingModes,
  videoCodecs,
  videoQualities,
  videoStatuses,
} from '@kino/proto/contract';

/** `/{orgID}/videos/{publicID}/...`: a video's path. */
export const VideoParams = Type.Object({ orgID: Id, publicID: Id });
/** `/{orgID}/videos/{videoID}`: DELETE's and PATCH's path. */
export const VideoIdParams = Type.Object({ orgID: Id, videoID: Id });

/** A video's metadata as answered: only the fields that are set. */
export const VideoMetadataSchema = Type.Object(
  {
    externalId: Type.Optional(
      Type.String({ description: "The application's own id for the video; `externalId=` filters lists by it." }),
    ),
    creatorId: Type.Optional(Type.String({ description: "Who made the video, in the application's terms." })),
    passthrough: Type.Optional(Type.String({ description: 'Stored and returned as given; Kino never reads it.' })),
  },
  { description: 'Present when any field is set (PATCH .../videos/{publicID}).' },
);

const listItemFields = {
  id: Type.String(),
  name: Type.String(),
  duration: Type.String({ description: 'minutes:seconds' }),
  durationSeconds: Type.Number(),
  createdAt: Type.String({ description: 'ISO 8601, UTC' }),
  thumbnailUrl: Type.Union([Type.String(), Type.Null()], {
    description:
      'On the delivery host; carries a short-lived image token for a private video; null until the video has a thumbnail.',
  }),
  description: Type.Optional(Type.String()),
  served: Type.String({ description: 'Estimated views, e.g. "1.2K views".' }),
  allowPublicAccess: Type.Boolean(),
  videoQuality: StringEnum(videoQualities),
  metadata: Type.Optional(VideoMetadataSchema),
};

export const VideoListItemSchema = Type.Object({ ...listItemFields, status: StringEnum(videoStatuses) });

export const OrgVideoListItemSchema = Type.Object({
  ...listItemFields,
  status: StringEnum(videoStatuses),
  envId: Type.String(),
});

export const EncodingSchema = Type.Object({
  key: Type.String({ description: 'e.g. 720p: the short edge followed by p.' }),
  shortEdgePixels: Type.Integer(),
  shortEdgeIsWidth: Type.Boolean(),
  videoStreamBitrate: Type.Integer({ description: 'kbps' }),
  audioStreamBitrate: Type.Integer({ description: 'kbps' }),
  audioFormat: Type.String(),
  maxFrameRate: Type.Number(),
  pixelFormat: Type.String(),
  rateControlMode: Type.String(),
  twoPassVBREncoding: Type.Boolean(),
  compressionRatio: Type.String(),
  videoCodec: StringEnum(videoCodecs, {
    description:
      '`h264` for the ladder every video has; `hevc` or `av1` for a rendition `additionalCodecs` asked for (its key ends `-hevc`, `-av1`).',
  }),
  vmaf: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 100,
      description:
        'Mean VMAF (0 to 100) of this rendition against the source, to 2 decimals; absent when it was not measured.',
    }),
  ),
  averageBitrate: Type.Optional(
    Type.Integer({
      description:
        'kbps measured over the whole rendition, audio included (its HLS AVERAGE-BANDWIDTH); below videoStreamBitrate ' +
        'when contentAware spent less than the ladder. Absent for renditions made before it was kept.',
    }),
  ),
});

export const CaptionTrackSchema = Type.Object({
  language: Type.String({
    description: 'BCP 47 language tag, canonical case (`en`, `pt-BR`); one track per language.',
  }),
  label: Type.String({ description: 'The name players show.' }),
  default: Type.Boolean({
    description: 'Players show this track unless the viewer picks another; at most one per video.',
  }),
  source: StringEnum(['uploaded', 'generated'] as const, {
    description: '`uploaded` through the API; `generated` is reserved for automatic captions.',
  }),
  url: Type.String({
    description: 'The whole WebVTT file on the delivery host; with a 24 h token for a private video.',
  }),
});

export const AudioTrackSchema = Type.Object({
  language: Type.String({
    description: 'BCP 47 language tag, canonical case (`es`, `pt-BR`); one added track per language.',
  }),
  name: Type.String({ description: 'The name players show.' }),
  default: Type.Boolean({
    description: 'Players start with this track unless the viewer picks another; at most one added track per video.',
  }),
  status: StringEnum(['processing', 'ready', 'failed'] as const, {
    description:
      '`processing` while its rendition is made; `ready` once the master playlist offers it; `failed` with a reason.',
  }),
  reason: Type.Optional(Type.String({ description: 'Why the track failed; only on failed tracks.' })),
});

export const VideoDetailsSchema = Type.Object({
  ...listItemFields,
  publicID: Type.String(),
  envId: Type.String(),
  status: Type.Object({ ready: Type.Boolean(), transcoding: Type.Boolean(), failed: Type.Boolean() }),
  failureReason: Type.Optional(Type.String({ description: 'Why processing failed; only on failed videos.' })),
  waitingFor: Type.Optional(
    Type.String({
      description:
        'Why some of its encodes wait while it is transcoding: no live encode node can run them (e.g. "no live encode node has the quality ffmpeg (SVT-AV1, libvmaf)" for AV1, or a `nodeLabels` label no node carries). They start the moment such a node joins.',
    }),
  ),
  maxEdgeLength: Type.Integer(),
  maxFrameRate: Type.Number(),
  pixelFormat: Type.String(),
  rateControlMode: Type.String(),
  twoPassVBREncoding: Type.Boolean(),
  compressionRatio: Type.String(),
  audioCodec: Type.String(),
  encodingMode: StringEnum(encodingModes, {
    description: 'As asked at processing; `fixed` for videos processed before it existed.',
  }),
  additionalCodecs: Type.Array(StringEnum(additionalVideoCodecs), {
    description: 'As asked at processing; empty for videos processed before it existed.',
  }),
  hardwareEncoding: StringEnum(hardwareEncodingModes, {
    description:
      'Whether its renditions could be made on hardware encoders, as at processing; `never` for videos processed before it existed.',
  }),
  nodeLabels: Type.Array(Type.String(), {
    description:
      'The node labels its encodes asked for, as at processing; empty for videos processed before it existed.',
  }),
  watermark: Type.Optional(WatermarkSchema),
  sourceDynamicRange: Type.Optional(
    StringEnum(dynamicRanges, {
      description:
        "The source's dynamic range, by its transfer: `hdr10` (PQ, also Dolby Vision 8.1's base layer), `hlg` (hybrid log-gamma, as phones record HDR), else `sdr`. The H.264 ladder is SDR BT.709 whatever the source: an HDR source's picture is tone-mapped. Absent until the video is ready, and for videos processed before it was read.",
    }),
  ),
  encodings: Type.Array(EncodingSchema, {
    description:
      'The H.264 ladder, smallest first, then the renditions of each added codec (hevc, then av1), smallest first.',
  }),
  storyboardUrl: Type.Optional(
    Type.String({
      description:
        'WebVTT on the delivery host whose cues point at sprite-sheet regions (`#xywh=x,y,w,h`), for timeline previews; with a 24 h token for a private video. Absent until the video has one.',
    }),
  ),
  audioUrl: Type.Optional(
    Type.String({
      description:
        "The video's sound alone as one file to download (`audio.m4a`: AAC in MP4) on the delivery host; with a 24 h token for a private video. Absent for a video without sound. Also at `/{publicID}/audio.m4a` and `.../audio.m4a` in the public and private families, with the token rules of MP4 downloads.",
    }),
  ),
  captions: Type.Array(CaptionTrackSchema, { description: 'Caption tracks, by language.' }),
  clipOf: Type.Optional(
    Type.Object(
      {
        videoId: Type.String({ description: 'The video the clip was cut from.' }),
        startTime: Type.Number({ description: 'The range asked for, in seconds of that video.' }),
        endTime: Type.Number(),
      },
      {
        description:
          "Only on clips (POST .../clips). `duration` is what the clip plays: the span of the source's segments the range overlaps.",
      },
    ),
  ),
  liveStreamId: Type.Optional(
    Type.String({ description: "Only on a broadcast's video: the live stream (`ls_…`) it records." }),
  ),
  live: Type.Optional(
    Type.Boolean({
      description: "Only on a broadcast's video: true while the broadcast runs, false once its publisher is gone.",
    }),
  ),
});

export const PaginationSchema = Type.Object({
  total: Type.Integer(),
  page: Type.Integer(),
  pageSize: Type.Integer(),
  totalPages: Type.Integer(),
  hasNext: Type.Boolean(),
  hasPrevious: Type.Boolean(),
});

// The examples of the OpenAPI document (and its reference page): one public 1080p video, ready,
// with English captions, as its details, a list item and a ladder entry show it.
const exampleIds = { orgId: 'org_3fK9xQ2mLr7TzV1a', envId: 'env_8HcPq4Ws0dYbN6eJ', videoId: 'vid_5Rt2LmQ9xZk3Wv7A' };
const exampleFiles = `https://media.example.com/v1/public/${exampleIds.orgId}/${exampleIds.envId}/${exampleIds.videoId}`;

export const exampleCaptionTrack: Static<typeof CaptionTrackSchema> = {
  language: 'en',
  label: 'English',
  default: true,
  source: 'uploaded',
  url: `${exampleFiles}/subtitles-en.vtt`,
};

export const exampleAudioTrack: Static<typeof AudioTrackSchema> = {
  language: 'es',
  name: 'Spanish',
  default: false,
  status: 'processing',
};

export const exampleVideoListItem: Static<typeof VideoListItemSchema> = {
  id: exampleIds.videoId,
  name: 'Product launch keynote',
  duration: '12:34',
  durationSeconds: 754.2,
  createdAt: '2026-11-20T09:15:00.000Z',
  thumbnailUrl: `https://media.example.com/t/${exampleIds.videoId}/1280x720.jpg`,
  description: 'The keynote of the November launch.',
  served: '1.2K views',
  allowPublicAccess: true,
  videoQuality: 'high',
  metadata: { externalId: 'talk-2026-042', creatorId: 'user_981' },
  status: 'ready',
};

export const exampleVideoDetails: Static<typeof VideoDetailsSchema> = {
  ...exampleVideoListItem,
  publicID: exampleIds.videoId,
  envId: exampleIds.envId,
  status: { ready: true, transcoding: false, failed: false },
  maxEdgeLength: 1920,
  maxFrameRate: 30,
  pixelFormat: 'yuv420p',
  rateControlMode: 'variableBitrate',
  twoPassVBREncoding: false,
  compressionRatio: 'medium',
  audioCodec: 'aac',
  encodingMode: 'contentAware',
  additionalCodecs: ['av1'],
  nodeLabels: [],
  hardwareEncoding: 'never',
  sourceDynamicRange: 'sdr',
  encodings: [
    {
      key: '1080p',
      shortEdgePixels: 1080,
      shortEdgeIsWidth: false,
      videoStreamBitrate: 5000,
      audioStreamBitrate: 128,
      audioFormat: 'aac',
      maxFrameRate: 30,
      pixelFormat: 'yuv420p',
      rateControlMode: 'variableBitrate',
      twoPassVBREncoding: false,
      compressionRatio: 'medium',
      videoCodec: 'h264',
      vmaf: 95.21,
      averageBitrate: 3412,
    },
    {
      key: '1080p-av1',
      shortEdgePixels: 1080,
      shortEdgeIsWidth: false,
      videoStreamBitrate: 3000,
      audioStreamBitrate: 128,
      audioFormat: 'aac',
      maxFrameRate: 30,
      pixelFormat: 'yuv420p',
      rateControlMode: 'variableBitrate',
      twoPassVBREncoding: false,
      compressionRatio: 'medium',
      videoCodec: 'av1',
      vmaf: 95.48,
      averageBitrate: 1530,
    },
  ],
  storyboardUrl: `${exampleFiles}/storyboard.vtt`,
  captions: [exampleCaptionTrack],
};

export { exampleIds };

export const examplePagination: Static<typeof PaginationSchema> = {
  total: 1,
  page: 1,
  pageSize: 20,
  totalPages: 1,
  hasNext: false,
  hasPrevious: false,
};
