// The API's records, field for field as the interface spec names them (and docs/decisions/ where
// the spec says "not shown"). Responses arrive wrapped as `{ body }`; these are the `body` contents.
// The encoding vocabulary and the webhook events come from the contract the server is built from.
// So are the value lists (statuses, delete reasons, content types, URL expirations) and the error envelope.
import type {
  AdditionalVideoCodec,
  AudioCodec,
  CompressionRatio,
  DeleteReason,
  DynamicRange,
  EncodingMode,
  ErrorEnvelope,
  LiveStreamLatency,
  LiveStreamStatus,
  LiveStreamWebhookEvent,
  MaxEdgeLength,
  PixelFormat,
  PlaybackExpiration,
  RateControlMode,
  UploadContentType,
  VideoCodec,
  VideoQuality,
  VideoStatus,
  Watermark,
  WatermarkPosition,
  WatermarkRequest,
  WebhookEvent,
  ImageFormat,
} from '@kino/proto/contract';

export type {
  Watermark,
  WatermarkPosition,
  WatermarkRequest,
  ImageFormat,
  AdditionalVideoCodec,
  AudioCodec,
  CompressionRatio,
  DeleteReason,
  DynamicRange,
  EncodingMode,
  ErrorEnvelope,
  LiveStreamLatency,
  LiveStreamStatus,
  LiveStreamWebhookEvent,
  MaxEdgeLength,
  PixelFormat,
  RateControlMode,
  UploadContentType,
  VideoCodec,
  VideoQuality,
  VideoStatus,
  WebhookEvent,
};
export type SignedUrlExpiration = PlaybackExpiration;

/** `GET /{orgID}/environments` → `body.environments[]` (docs/decisions/api.md#environments-and-the-organization-wide-list). */
export interface Environment {
  id: string;
  name: string;
  createdAt: string;
  /**
   * Just-in-time segments for its videos: true, a video turns ready with its first segments (the
   * rest follow in the background or when a viewer asks); false, ready once its whole ladder is
   * made; null, the farm's default.
   */
  justInTime: boolean | null;
  /** The default of its videos' `hardwareEncoding` (`never` unless set). An extension of the spec. */
  hardwareEncoding: 'never' | 'allowed';
  /** The default of its videos' `nodeLabels` (empty: any node). An extension of the spec. */
  nodeLabels: string[];
  /** The watermark of its videos whose process call names none (defaults applied); null: none. */
  watermark: Watermark | null;
}

/** `PATCH /{orgID}/environments/{envID}`: the settings to change, at least one. */
export interface UpdateEnvironmentParams {
  /** true or false; null follows the farm's default again. Videos read it when their processing starts. */
  justInTime?: boolean | null;
  /** `allowed`: its videos' renditions may use nodes' working hardware encoders; `never`: software only. */
  hardwareEncoding?: 'never' | 'allowed';
  /** Labels every encode node of its videos must carry; empty: any node. */
  nodeLabels?: string[];
  /** The default watermark of its videos (an image of the environment: `kino.images.upload`); null: none. */
  watermark?: WatermarkRequest | null;
}

/** `POST /{orgID}/environments/{envID}/images`: an image a watermark names. */
export interface Image {
  imageId: string;
  format: ImageFormat;
  width: number;
  height: number;
  sizeBytes: number;
  createdAt: string;
}

/** A video as lists show it. */
export interface Video {
  id: string;
  name: string;
  /** minutes:seconds */
  duration: string;
  durationSeconds: number;
  createdAt: string;
  /** Carries a short-lived image token for a private video; null until the video has a thumbnail. */
  thumbnailUrl: string | null;
  /** Present only if provided. */
  description?: string;
  status: VideoStatus;
  /** Estimated views, e.g. `"1.2K views"`. */
  served: string;
  allowPublicAccess: boolean;
  videoQuality: VideoQuality;
  /** Present when any field is set (`videos.update`). */
  metadata?: VideoMetadata;
}

/** A video's metadata: the application's own ids and a string Kino stores and returns unread. */
export interface VideoMetadata {
  /** The application's own id for the video, at most 128 characters; lists filter by it (`externalId`). */
  externalId?: string;
  /** Who made the video, in the application's terms; at most 128 characters. */
  creatorId?: string;
  /** At most 255 characters; Kino never reads it. */
  passthrough?: string;
}

/** `videos.update`: at least one field. An absent field stays as it is; null clears it. */
export interface UpdateVideoParams {
  videoName?: string;
  /** At most 5,000 characters; null or `""` clears it. */
  description?: string | null;
  /** false: delivery asks for a token within its metadata refresh (2 s by default). */
  allowPublicAccess?: boolean;
  metadata?: { [K in keyof VideoMetadata]?: VideoMetadata[K] | null };
}

/** An item of the organization-wide list (`GET /{orgID}/videos`): a video plus its environment. */
export interface OrganizationVideo extends Video {
  envId: string;
}

/** One rung of the encoding ladder. */
export interface Encoding {
  /** e.g. `720p`: the short edge followed by p. */
  key: string;
  shortEdgePixels: number;
  shortEdgeIsWidth: boolean;
  /** kbps */
  videoStreamBitrate: number;
  /** kbps */
  audioStreamBitrate: number;
  audioFormat: string;
  maxFrameRate: number;
  pixelFormat: string;
  rateControlMode: string;
  twoPassVBREncoding: boolean;
  compressionRatio: string;
  /** `h264` for the ladder every video has; `hevc` or `av1` for a rendition of `additionalCodecs` (key like `720p-av1`). */
  videoCodec: VideoCodec;
  /** Mean VMAF (0 to 100) of this rendition against the source, to 2 decimals; absent when not measured. */
  vmaf?: number;
  /** kbps measured over the whole rendition, audio included; absent for renditions made before it was kept. */
  averageBitrate?: number;
}

/** `GET /{orgID}/videos/{publicID}/details`. */
export interface VideoDetails extends Omit<Video, 'status'> {
  status: { ready: boolean; transcoding: boolean; failed: boolean };
  /** Equals `id`. */
  publicID: string;
  /** The environment the video belongs to. */
  envId: string;
  /** Why processing failed; only on failed videos. */
  failureReason?: string;
  maxEdgeLength: number;
  maxFrameRate: number;
  pixelFormat: string;
  rateControlMode: string;
  twoPassVBREncoding: boolean;
  compressionRatio: string;
  audioCodec: string;
  /** As asked at processing; `fixed` for videos processed before it existed. */
  encodingMode: EncodingMode;
  /** As asked at processing; empty for videos processed before it existed. */
  additionalCodecs: AdditionalVideoCodec[];
  /** The node labels its encodes asked for; empty for videos processed before it existed. An extension. */
  nodeLabels: string[];
  /** Whether its renditions could be made on hardware encoders; `never` for videos before it existed. An extension. */
  hardwareEncoding: 'never' | 'allowed';
  /** The image burnt into its renditions (the call's or its environment's, defaults applied); absent: none. */
  watermark?: Watermark;
  /**
   * Why some of its encodes wait while it is transcoding: no live encode node can run them (AV1 with
   * no node that has the quality ffmpeg, a label no node carries). An extension of the spec.
   */
  waitingFor?: string;
  /**
   * The source's dynamic range: `hdr10` (PQ), `hlg` or `sdr`. The H.264 ladder is SDR BT.709 either
   * way (an HDR source's picture is tone-mapped). Absent until the video is ready, and for videos
   * processed before it was read. An extension: the interface spec does not name it.
   */
  sourceDynamicRange?: DynamicRange;
  /** The H.264 ladder, smallest first, then each added codec's renditions (hevc, then av1). */
  encodings: Encoding[];
  /**
   * WebVTT of timeline previews: cues point at sprite-sheet regions (`storyboard-0.jpg#xywh=x,y,w,h`).
   * Carries a 24 h token for a private video. Absent until processing made one.
   */
  storyboardUrl?: string;
  /**
   * The video's sound alone as one file (`audio.m4a`: AAC in MP4) on the delivery host; carries a
   * 24 h token for a private video. Absent for a video without sound. An audio-only video (a source
   * with no picture) has one encoding of `shortEdgePixels` 0 and no thumbnail.
   */
  audioUrl?: string;
  /** Caption tracks, by language. */
  captions: CaptionTrack[];
  /** Only on a clip: the video it was cut from and the range asked for. */
  clipOf?: ClipOf;
  /** Only on a broadcast's video: the live stream (`ls_…`) it records. */
  liveStreamId?: string;
  /** Only on a broadcast's video: true while the broadcast runs. */
  live?: boolean;
}

/** A clip's source and range (`duration` is what the clip plays: whole segments of the source covering the range). */
export interface ClipOf {
  videoId: string;
  startTime: number;
  endTime: number;
}

/** `POST /{orgID}/videos/{publicID}/clips`. */
export interface CreateClipParams {
  /** Seconds into the source; 0 ≤ startTime < endTime ≤ the source's duration. */
  startTime: number;
  endTime: number;
  /** Default: the source's name with " (clip)". */
  videoName?: string;
  /** Default: the source's. */
  allowPublicAccess?: boolean;
  /**
   * Default false: the clip plays whole segments of the source and is ready at once. true: it plays
   * exactly startTime to endTime; it is transcoding until its first and last segments are encoded
   * again (wait for `ready` as for any video).
   */
  frameAccurate?: boolean;
}

export interface Pagination {
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
  hasNext: boolean;
  hasPrevious: boolean;
}

export interface VideoList<T extends Video = Video> {
  videos: T[];
  pagination: Pagination;
}

export interface ListVideosParams {
  /** 1-based; default 1. */
  page?: number;
  /** Default 20, maximum 100. */
  pageSize?: number;
  sortBy?: 'created_at' | 'name' | 'duration' | 'status';
  sortDir?: 'asc' | 'desc';
  status?: VideoStatus;
  /** Case-insensitive match in video names. */
  search?: string;
  /** YYYY-MM-DD */
  from?: string;
  /** YYYY-MM-DD */
  to?: string;
  /** Only videos whose `metadata.externalId` is exactly this. */
  externalId?: string;
  /** Only this live stream's broadcasts (`ls_…`): the videos recorded from it, newest first by default. */
  liveStreamId?: string;
}

export interface CreateUploadUrlParams {
  filename: string;
  /** Bytes; at most 5 GB. */
  fileSize: number;
  /** Default `video/mp4`. */
  contentType?: UploadContentType;
}

/** The upload ticket: PUT the file to `signedURL` within the hour, then process `bucketPath`. */
export interface UploadTicket {
  signedURL: string;
  bucketPath: string;
  /** Unix timestamp (seconds). */
  expiresAt: number;
}

/** `POST .../uploads/multipart`: the same fields and limits as an upload URL, and a part size. */
export interface CreateMultipartUploadParams extends CreateUploadUrlParams {
  /** Bytes per part (the last may be shorter): 5 MiB to 5 GiB, and at most 10,000 parts. Default: the service picks. */
  partSize?: number;
}

/** A multipart upload: PUT each part to its URL (`partUrls`), then `completeMultipart`, then process `bucketPath`. */
export interface MultipartUpload {
  uploadId: string;
  bucketPath: string;
  /** Bytes of every part but the last. */
  partSize: number;
  partCount: number;
  /** Unix time (seconds) after which the service aborts the upload if it is not complete. */
  expiresAt: number;
}

/** One presigned part URL. */
export interface PartUrl {
  partNumber: number;
  /** PUT the part's bytes here (no Content-Type needed); valid 1 hour. */
  signedURL: string;
}

export interface PartUrls {
  parts: PartUrl[];
  /** Unix time (seconds) at which these URLs expire. */
  expiresAt: number;
}

/** A part storage has received. */
export interface UploadedPart {
  partNumber: number;
  size: number;
  etag: string;
}

/** `POST .../uploads/multipart/{uploadId}/complete`: the object exists; process `bucketPath`. */
export interface CompletedMultipartUpload {
  bucketPath: string;
  fileSize: number;
}

/** `DELETE .../uploads/multipart/{uploadId}`. */
export interface AbortedMultipartUpload {
  uploadId: string;
  status: 'aborted';
}

/** What `uploads.upload` returns: process its `bucketPath` with `videos.process`. */
export interface UploadedFile {
  bucketPath: string;
  fileSize: number;
  contentType: UploadContentType;
  /** Parts of a multipart upload; 0 for a single PUT. */
  partCount: number;
  /** Bytes found on storage from an earlier, interrupted run and not sent again. */
  resumedBytes: number;
  /** Unix time (seconds) at which the upload's URLs expire: the single PUT's in an hour, a multipart upload's in a day. */
  expiresAt: number;
}

export interface ProcessVideoParams {
  /** The `bucketPath` of the upload ticket. */
  storagePath: string;
  videoQuality: VideoQuality;
  allowPublicAccess: boolean;
  videoName?: string;
  /** -1 (auto) or 480, 720, 1080, 1440, 2160. */
  maxEdgeLength?: MaxEdgeLength;
  /** Frames per second; -1 (auto). */
  maxFrameRate?: number;
  pixelFormat?: PixelFormat;
  rateControlMode?: RateControlMode;
  twoPassVBREncoding?: boolean;
  compressionRatio?: CompressionRatio;
  audioCodec?: AudioCodec;
  /**
   * Default `fixed`: each rendition spends the preset's ladder bitrate. `contentAware`: each spends
   * what the content needs, never more than that ladder value.
   */
  encodingMode?: EncodingMode;
  /**
   * Codecs to make renditions in beside the H.264 ladder, which always stays (and alone has MP4
   * downloads); each at most once. Default none.
   */
  additionalCodecs?: AdditionalVideoCodec[];
  /**
   * Labels every encode node of the video must carry (`acme`: a customer's own nodes). Default none.
   * An extension of the spec.
   */
  nodeLabels?: string[];
  /**
   * `allowed`: nodes with a working hardware encoder of a rendition's codec may use it; `never`:
   * software only. Default: the environment's setting. An extension of the spec.
   */
  hardwareEncoding?: 'never' | 'allowed';
  /**
   * An image of the environment (`kino.images.upload`) burnt into every rendition at `position`, its
   * width (default 12) and margins (default 3) percentages of the picture, at `opacity` (default 1).
   * Default: the environment's `watermark`.
   */
  watermark?: WatermarkRequest;
  /**
   * Caption tracks to make from the speech once the video is ready (`source: "generated"`), each in
   * a language the farm's speech engines transcribe (the bundled model: `en`) or `auto` (default):
   * the language heard. Another language answers 400 `unsupported_language`.
   */
  generatedSubtitles?: GeneratedSubtitlesParams[];
}

export interface GeneratedSubtitlesParams {
  /** A BCP 47 tag, or `auto` (default). */
  language?: string;
  /** The name players show; default: the language's English name. */
  label?: string;
}

/** `POST .../captions/generate`'s body. */
export interface GenerateCaptionsParams {
  /** A BCP 47 tag the farm's speech engines transcribe, or `auto` (default): the language heard. */
  language?: string;
}

/** `GET .../transcript`'s query. */
export interface TranscriptParams {
  /** The track's language; default: the video's default track, else its first. */
  language?: string;
  /** `text` (default): the words; `json`: also each cue with its times. */
  format?: 'text' | 'json';
}

/** `POST .../captions/generate`'s answer: the track is on its way. */
export interface GeneratingCaptionTrack {
  language: string;
  status: 'generating';
}

/** A caption track's words (`GET .../transcript`); `cues` with `format: 'json'`. */
export interface Transcript {
  language: string;
  source: 'uploaded' | 'generated';
  /** The words without markup, one cue a line. */
  text: string;
  cues?: { startSeconds: number; endSeconds: number; text: string }[];
}

export interface ProcessVideoResult {
  videoID: string;
}

/**
 * `POST /{orgID}/environments/{envID}/videos/ingest`: a video from a URL, with every option of
 * `videos.process` but `storagePath`. The source is fetched by Kino (resuming a dropped connection);
 * an HTTP error, a source over 5 GB, an unsupported container or a private address ends the video
 * `failed` with the reason (`source_http_error: ...`, `source_too_large: ...`,
 * `source_unsupported_format: ...`, `source_address_refused: ...`).
 */
export interface IngestVideoParams extends Omit<ProcessVideoParams, 'storagePath'> {
  /** An http or https URL. Default `videoName`: its last path segment. */
  url: string;
}

/** `POST /{orgID}/videos/{publicID}/retry`: the failed video is back in `transcoding`. */
export interface RetryVideoResult {
  videoID: string;
  status: 'transcoding';
}

export interface DeleteVideoResult {
  status: 'deleted';
  deletedAt: string;
  message: string;
}

export interface SignedPlaybackUrl {
  /** The delivery host's master playlist URL with a `token` query parameter. */
  signed_url: string;
  /** Seconds until the token expires. */
  expires_in: number;
}

export interface SignedUrlParams {
  /** Default `1h`; at most `7d`. */
  expiration?: SignedUrlExpiration;
  /** Domains allowed to play (sent comma-separated). */
  domains?: string[];
}

export interface CreateShareLinkParams {
  /** 1..8760, default 168. */
  expirationHours?: number;
  /** 1..1,000,000; counts master-playlist loads. Absent: no limit. */
  maxViews?: number;
  /** Recorded with the link (not mailed). */
  viewerEmail?: string;
}

export interface ShareLink {
  id: string;
  shareUrl: string;
  directUrl: string;
  expiresAt: string;
  maxViews: number | null;
  viewerEmail: string | null;
  createdAt: string;
  /** Master-playlist loads so far. */
  views: number;
}

export interface RevokedShareLink {
  id: string;
  status: 'revoked';
  revokedAt: string;
}

export interface AddCaptionParams {
  /** BCP 47 language tag (`en`, `pt-BR`); a second upload for a language replaces its track. */
  language: string;
  /** The name players show; default: the language's English name. */
  label?: string;
  /** Default `vtt`; SRT is converted to WebVTT. */
  format?: 'vtt' | 'srt';
  /** The file's text, at most 2 MB. */
  content: string;
  /** Players show this track unless the viewer picks another; clears any other default. */
  default?: boolean;
}

export interface CaptionTrack {
  language: string;
  label: string;
  default: boolean;
  /** `uploaded` through the API; `generated` from the speech (`generateCaptions`, `generatedSubtitles`). */
  source: 'uploaded' | 'generated';
  /** The whole WebVTT file on the delivery host; with a 24 h token for a private video. */
  url: string;
}

export interface DeletedCaptionTrack {
  language: string;
  status: 'deleted';
}

export interface AddAudioTrackParams {
  /** The bucketPath of an upload ticket of the video's environment: a file with an audio stream. */
  storagePath: string;
  /** BCP 47 language tag (`es`, `pt-BR`); a second upload for a language replaces its track. */
  language: string;
  /** The name players show; default: the language's English name. */
  name?: string;
  /** Players start with this track unless the viewer picks another; clears any other added track's default. */
  default?: boolean;
}

export interface AudioTrack {
  language: string;
  name: string;
  default: boolean;
  /** `processing` while its rendition is made; `ready` once the master playlist offers it; `failed` with `reason`. */
  status: 'processing' | 'ready' | 'failed';
  /** Why the track failed; only on failed tracks. */
  reason?: string;
}

export interface DeletedAudioTrack {
  language: string;
  status: 'deleted';
}

export interface CreateThumbnailParams {
  /** Seconds into the video. */
  timestamp: number;
  setAsDefault?: boolean;
}

export interface Thumbnail {
  url: string;
  timestamp: number;
}

export interface CreateWebhookParams {
  url: string;
  /** Default: every event. */
  events?: WebhookEvent[];
}

export interface Webhook {
  id: string;
  url: string;
  events: WebhookEvent[];
  createdAt: string;
}

/** The answer to webhook creation: the signing secret is shown this once. */
export interface CreatedWebhook extends Webhook {
  secret: string;
}

/** A video event's body: `data` is the video's details as `videos.get` answers them when the event happened. */
interface VideoEventPayload<Event extends WebhookEvent, Status extends VideoStatus | 'deleted'> {
  event: Event;
  videoId: string;
  status: Status;
  /** ISO 8601, when the change happened. */
  timestamp: string;
  data: VideoDetails;
}

/** `process`, `ingest` or a clip made a video (a clip is `ready` at once). */
export type VideoCreatedPayload = VideoEventPayload<'video.created', VideoStatus>;
export type VideoProcessingCompletedPayload = VideoEventPayload<'video.processing.completed', 'ready'>;
/** `data.failureReason` says why. */
export type VideoProcessingFailedPayload = VideoEventPayload<'video.processing.failed', 'failed'>;
/** A PATCH changed the video: `data` is the details after it. */
export type VideoUpdatedPayload = VideoEventPayload<'video.updated', VideoStatus>;
/** The video was deleted: `data` is its details as they were just before. */
export type VideoDeletedPayload = VideoEventPayload<'video.deleted', 'deleted'>;
/** A caption track was added or replaced: `data.captions` lists it. */
export type VideoCaptionReadyPayload = VideoEventPayload<'video.caption.ready', VideoStatus>;

/**
 * A live stream's event: `videoId` is the broadcast's video (the recording, for
 * `live_stream.recording.ready`); `data` is the stream as `liveStreams.get` answers it at that
 * moment, less `streamKey` and `ingest` (the key stays out of webhook bodies).
 */
interface LiveStreamEventPayload<Event extends LiveStreamWebhookEvent> {
  event: Event;
  liveStreamId: string;
  videoId: string;
  status: LiveStreamStatus;
  /** ISO 8601, when it happened. */
  timestamp: string;
  data: Omit<LiveStream, 'streamKey' | 'ingest'>;
}

/** A publisher was admitted: a broadcast (its video `videoId`) started. */
export type LiveStreamActivePayload = LiveStreamEventPayload<'live_stream.active'>;
/** The publisher's connection ended: the stream stays `active` through its reconnect window. */
export type LiveStreamDisconnectedPayload = LiveStreamEventPayload<'live_stream.disconnected'>;
/** The broadcast is over (the window passed, or the publisher was cut off). */
export type LiveStreamIdlePayload = LiveStreamEventPayload<'live_stream.idle'>;
/** The broadcast's recording (`videoId`) is a ready on-demand video. */
export type LiveStreamRecordingReadyPayload = LiveStreamEventPayload<'live_stream.recording.ready'>;

/** `webhooks.test`: no video. */
export interface WebhookTestPayload {
  event: 'webhook.test';
  videoId: null;
  status: null;
  timestamp: string;
  data: { webhookId: string; message: string };
}

/** The body of a webhook delivery, narrowed by `event` (what `webhooks.verify` returns). */
export type WebhookPayload =
  | VideoCreatedPayload
  | VideoProcessingCompletedPayload
  | VideoProcessingFailedPayload
  | VideoUpdatedPayload
  | VideoDeletedPayload
  | VideoCaptionReadyPayload
  | LiveStreamActivePayload
  | LiveStreamDisconnectedPayload
  | LiveStreamIdlePayload
  | LiveStreamRecordingReadyPayload
  | WebhookTestPayload;

/** `GET .../webhooks/{webhookID}/deliveries` → `body.deliveries[]`: one attempt to deliver one message. */
export interface WebhookDelivery {
  /** This attempt: what `webhooks.redeliver` takes. */
  id: string;
  /** The Standard Webhooks `webhook-id`: the same on every attempt of the message, redeliveries included. */
  messageId: string;
  event: WebhookEvent | 'webhook.test';
  /** 1 for the message's first attempt to this webhook; retries and redeliveries count on. */
  attempt: number;
  /** The endpoint's HTTP status; null when none came. */
  responseStatus: number | null;
  durationMs: number;
  /** Why the attempt failed; null when the endpoint answered 2xx. */
  error: string | null;
  createdAt: string;
}

/** `GET /health` (docs/decisions/api.md#health): 200 when every check passes, 503 naming the failing one. */
export interface Health {
  status: 'ok' | 'degraded';
  version: string;
  checks: Record<string, unknown>;
}

// Analytics records (docs/analytics.md). Counts are int64 on the wire, sent as JSON numbers.
// Timestamps are `YYYY-MM-DDThh:mm:ssZ` (UTC), and `""` when their `...Valid` companion is false.

/**
 * Usage of one environment: `GET /{orgID}/analytics/usage` returns one per environment.
 * @example
 * { authOrgId: 'org_1', envId: 'env_1', totalVideos: 12, totalVideoDurationSeconds: 1830.5,
 *   totalSegmentsServed: 48210, videosUploadedInPeriod: 3, segmentsServedInPeriod: 9120,
 *   firstVideoUploaded: '2026-01-04T09:12:44Z', firstVideoUploadedValid: true,
 *   lastSegmentServed: '2026-11-23T01:20:03Z', lastSegmentServedValid: true }
 */
export interface UsageRecord {
  /** The organization id (the identity provider's id once the dashboard maps one). */
  authOrgId: string;
  envId: string;
  /** Videos that exist now (deleted ones excluded). */
  totalVideos: number;
  totalVideoDurationSeconds: number;
  /** All time. */
  totalSegmentsServed: number;
  /** Videos created in the period, deleted since or not. */
  videosUploadedInPeriod: number;
  /** Over the `periodDays` UTC days ending with `endDate` (today by default), both included. */
  segmentsServedInPeriod: number;
  firstVideoUploaded: string;
  firstVideoUploadedValid: boolean;
  lastSegmentServed: string;
  lastSegmentServedValid: boolean;
}

/**
 * One UTC day of `GET /{orgID}/analytics/daily` (every day of the range, zero days included).
 * @example
 * { deliveryDate: '2026-11-22T00:00:00Z', segmentsServed: 1400, uniqueVideosServed: 9,
 *   hdSegments: 800, sdSegments: 500, ldSegments: 100 }
 */
export interface DailyRecord {
  /** The day's midnight, `YYYY-MM-DDT00:00:00Z`. */
  deliveryDate: string;
  segmentsServed: number;
  uniqueVideosServed: number;
  /** Heights 1080 and above. */
  hdSegments: number;
  /** 720p, and heights between 480 and 1080. */
  sdSegments: number;
  /** Heights 480 and below. */
  ldSegments: number;
}

/**
 * `GET /{orgID}/analytics/storage`: the videos that exist now, in seconds of video.
 * @example
 * { totalVideos: 12, totalDurationSeconds: 1830.5, avgVideoDuration: 152.54,
 *   ultraQualityDuration: 0, highQualityDuration: 600, standardQualityDuration: 1230.5 }
 */
export interface StorageRecord {
  totalVideos: number;
  totalDurationSeconds: number;
  /** 0 without videos. */
  avgVideoDuration: number;
  /** Seconds of videos processed with the `ultra` preset. */
  ultraQualityDuration: number;
  highQualityDuration: number;
  standardQualityDuration: number;
}

/**
 * One video over the range (`summary` of `GET /{orgID}/videos/{publicID}/analytics/resolution`).
 * @example
 * { vidId: 'vid_1', vidPublicId: 'vid_1', vidName: 'Launch', vidNameValid: true, vidLengthSeconds: 13,
 *   availableResolutions: 3, totalSegmentsServed: 9, totalDaysServed: 1,
 *   firstServed: '2026-11-23T01:02:03Z', firstServedValid: true, lastServed: '2026-11-23T01:05:00Z',
 *   lastServedValid: true, mostPopularResolution: 720, mostPopularResolutionValid: true }
 */
export interface ResolutionSummary {
  vidId: string;
  vidPublicId: string;
  vidName: string;
  vidNameValid: boolean;
  vidLengthSeconds: number;
  /** Count of rendition variants. */
  availableResolutions: number;
  totalSegmentsServed: number;
  totalDaysServed: number;
  firstServed: string;
  firstServedValid: boolean;
  lastServed: string;
  lastServedValid: boolean;
  /** The height served most (the taller on a tie); 0 when not valid. */
  mostPopularResolution: number;
  mostPopularResolutionValid: boolean;
}

/**
 * One height of one video (`resolutions`, tallest first).
 * @example
 * { vidId: 'vid_1', vidPublicId: 'vid_1', vidName: 'Launch', vidNameValid: true, resolutionHeight: 720,
 *   timesServed: 9, firstServed: '2026-11-23T01:02:03Z', firstServedValid: true,
 *   lastServed: '2026-11-23T01:05:00Z', lastServedValid: true, daysServed: 1 }
 */
export interface ResolutionEntry {
  vidId: string;
  vidPublicId: string;
  vidName: string;
  vidNameValid: boolean;
  resolutionHeight: number;
  /** Segments served at this height. */
  timesServed: number;
  firstServed: string;
  firstServedValid: boolean;
  lastServed: string;
  lastServedValid: boolean;
  daysServed: number;
}

/**
 * One height across videos (`GET /{orgID}/analytics/resolution-distribution`, tallest first).
 * @example
 * { resolutionHeight: 1080, segmentsServed: 4, uniqueVideos: 1, daysActive: 1,
 *   firstServed: '2026-11-23T01:02:03Z', firstServedValid: true,
 *   lastServed: '2026-11-23T01:02:09Z', lastServedValid: true }
 */
export interface DistributionEntry {
  resolutionHeight: number;
  segmentsServed: number;
  uniqueVideos: number;
  daysActive: number;
  firstServed: string;
  firstServedValid: boolean;
  lastServed: string;
  lastServedValid: boolean;
}

/** The body of `GET /{orgID}/videos/{publicID}/analytics/resolution`. */
export interface VideoResolutions {
  summary: ResolutionSummary;
  resolutions: ResolutionEntry[];
}

/** UTC days, inclusive. */
/** What `GET .../analytics/experience` groups by. */
export type ExperienceGrouping = 'day' | 'video' | 'browser' | 'os' | 'rendition';

/**
 * One group of `GET /{orgID}/analytics/experience`: what viewers lived through, with Mux Data's
 * definitions (docs/analytics.md, "Experience analytics"). Ratios are of sums over the group's views.
 * @example
 * { key: '2026-11-25', views: 412, watchTimeSeconds: 61830.5, startupMsP50: 640, startupMsP95: 1870,
 *   rebufferPercent: 0.42, rebuffersPerMinute: 0.031, failurePercent: 0.73, exitsBeforeStartPercent: 2.9 }
 */
export interface ExperienceRecord {
  /** The UTC day (YYYY-MM-DD), video id, browser, operating system or rendition height (`"720"`). */
  key: string;
  views: number;
  watchTimeSeconds: number;
  /** Video startup time (play request to first frame) over views that started; null when none did. */
  startupMsP50: number | null;
  startupMsP95: number | null;
  /** Stall time ÷ watch time × 100. */
  rebufferPercent: number;
  /** Stalls per minute of watch time. */
  rebuffersPerMinute: number;
  /** Views ended by a fatal error ÷ views × 100. */
  failurePercent: number;
  /** Views with a play request that neither started nor failed ÷ views with a play request × 100. */
  exitsBeforeStartPercent: number;
}

export interface DateRangeParams {
  /** YYYY-MM-DD */
  startDate?: string;
  /** YYYY-MM-DD */
  endDate?: string;
}

/** One entry of an error's `errors` list. */
export type ErrorDetail = NonNullable<ErrorEnvelope['errors']>[number];

/** An encode node as the operators' interface shows it (`kino.nodes`). */
/** An encode no live node can run (it needs a codec, a quality score or labels none has), and why. */
export interface WaitingEncode {
  videoId: string;
  /** The encode's job id (as nodes and logs name it). */
  job: string;
  /** E.g. `no live encode node has the quality ffmpeg (SVT-AV1, libvmaf)`. */
  waitingFor: string;
  enqueuedAt: string;
}

/** A node whose credential was revoked (`kino.nodes.revoke`). */
export interface RevokedNode {
  id: string;
  /** The name it was enrolled with. */
  name: string;
  /** Null: revoked before its enrollment token was used. */
  enrolledAt: string | null;
  revokedAt: string;
}

export interface EncodeNode {
  id: string;
  address: string;
  version: string;
  labels: Record<string, string>;
  /** The encoders of its ffmpeg that passed a test encode (`libx264`, `hevc_nvenc`, ...); empty from older nodes. */
  encoders: string[];
  /** Its quality ffmpeg (SVT-AV1, libvmaf) works: AV1 renditions and quality scores run only on such nodes. */
  qualityFfmpeg: boolean;
  /** The languages its speech engine transcribes; empty: it has none. */
  transcribeLanguages: string[];
  slots: number;
  slotsInUse: number;
  /** `draining`: the node is stopping, or an operator drained it (`drainRequestedAt` set). */
  state: 'active' | 'draining' | 'gone';
  drainRequestedAt: string | null;
  registeredAt: string;
  lastHeartbeatAt: string;
}

/** A live stream's settings (issue 56): what `create` takes, each optional, and `update` changes. */
export interface LiveStreamSettings {
  /** Default `Live stream`. */
  name?: string;
  /** Default false: play it through signed URLs (`liveStreams.playbackUrl`). */
  allowPublicAccess?: boolean;
  /** `low` (the default): parts of at most 1 s; `standard`: 6 s segments. */
  latency?: LiveStreamLatency;
  /** The ladder's preset; null or absent: the environment's. */
  videoQuality?: VideoQuality | null;
  /** Default true: each broadcast stays an on-demand video when it ends. */
  record?: boolean;
  /** 0..300, default 60: a publisher reconnecting within it continues the same broadcast. */
  reconnectWindowSeconds?: number;
}

export type CreateLiveStreamParams = LiveStreamSettings;
/** At least one setting. */
export type UpdateLiveStreamParams = LiveStreamSettings;

export interface LiveStream {
  /** `ls_…` */
  liveStreamId: string;
  name: string;
  status: LiveStreamStatus;
  latency: LiveStreamLatency;
  allowPublicAccess: boolean;
  videoQuality: VideoQuality | null;
  record: boolean;
  reconnectWindowSeconds: number;
  /** The publisher's credential: keep it secret, reset it when it leaks. */
  streamKey: string;
  ingest: {
    /** The server URL for an RTMP encoder (OBS's "Server"); the stream key goes apart. */
    rtmp: string;
    /** The whole SRT URL, the stream key as `streamid`. */
    srt: string;
  };
  /** The stream's own master playlist (its current or last broadcast) when public; null when private. */
  playback: { master: string | null };
  /** The running broadcast's video. */
  activeVideoId: string | null;
  createdAt: string;
}

export interface LiveStreamList {
  liveStreams: LiveStream[];
  pagination: Pagination;
}

export interface ListLiveStreamsParams {
  page?: number;
  /** 1..100, default 20. */
  pageSize?: number;
}

export interface DeletedLiveStream {
  liveStreamId: string;
  deleted: true;
}

export interface LiveStreamPlaybackUrlParams {
  /** Default `1h`; at most `7d`. */
  expiration?: SignedUrlExpiration;
  /** Comma-separated hostnames allowed to play (`example.com,*.example.org`). */
  domains?: string;
}
