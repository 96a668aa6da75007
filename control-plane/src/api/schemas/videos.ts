// The video resources of the spec: list item, details, ladder entry, pagination.
import { Type } from '@sinclair/typebox';
import { StringEnum } from './common.ts';
import { videoQualities, videoStatuses } from '@kino/proto/contract';

const listItemFields = {
  id: Type.String(),
  name: Type.String(),
  duration: Type.String({ description: 'minutes:seconds' }),
  durationSeconds: Type.Number(),
  createdAt: Type.String({ description: 'ISO 8601, UTC' }),
  thumbnailUrl: Type.Union([Type.String(), Type.Null()], {
    description: 'On the delivery host; carries a short-lived image token for a private video; null until the video has a thumbnail.',
  }),
  description: Type.Optional(Type.String()),
  served: Type.String({ description: 'Estimated views, e.g. "1.2K views".' }),
  allowPublicAccess: Type.Boolean(),
  videoQuality: StringEnum(videoQualities),
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
});

export const CaptionTrackSchema = Type.Object({
  language: Type.String({ description: 'BCP 47 language tag, canonical case (`en`, `pt-BR`); one track per language.' }),
  label: Type.String({ description: 'The name players show.' }),
  default: Type.Boolean({ description: 'Players show this track unless the viewer picks another; at most one per video.' }),
  source: StringEnum(['uploaded', 'generated'] as const, { description: '`uploaded` through the API; `generated` is reserved for automatic captions.' }),
  url: Type.String({ description: 'The whole WebVTT file on the delivery host; with a 24 h token for a private video.' }),
});

export const VideoDetailsSchema = Type.Object({
  ...listItemFields,
  publicID: Type.String(),
  envId: Type.String(),
  status: Type.Object({ ready: Type.Boolean(), transcoding: Type.Boolean(), failed: Type.Boolean() }),
  failureReason: Type.Optional(Type.String({ description: 'Why processing failed; only on failed videos.' })),
  maxEdgeLength: Type.Integer(),
  maxFrameRate: Type.Number(),
  pixelFormat: Type.String(),
  rateControlMode: Type.String(),
  twoPassVBREncoding: Type.Boolean(),
  compressionRatio: Type.String(),
  audioCodec: Type.String(),
  encodings: Type.Array(EncodingSchema),
  storyboardUrl: Type.Optional(
    Type.String({
      description:
        'WebVTT on the delivery host whose cues point at sprite-sheet regions (`#xywh=x,y,w,h`), for timeline previews; with a 24 h token for a private video. Absent until the video has one.',
    }),
  ),
  audioUrl: Type.Optional(
    Type.String({
      description:
        'The video\'s sound alone as one file to download (`audio.m4a`: AAC in MP4) on the delivery host; with a 24 h token for a private video. Absent for a video without sound. Also at `/{publicID}/audio.m4a` and `.../audio.m4a` in the public and private families, with the token rules of MP4 downloads.',
    }),
  ),
  captions: Type.Array(CaptionTrackSchema, { description: 'Caption tracks, by language.' }),
});

export const PaginationSchema = Type.Object({
  total: Type.Integer(),
  page: Type.Integer(),
  pageSize: Type.Integer(),
  totalPages: Type.Integer(),
  hasNext: Type.Boolean(),
  hasPrevious: Type.Boolean(),
});
