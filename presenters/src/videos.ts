// Database rows → the spec's resources.
import type { Rendition, Video } from '@kino/database';
import { isPictureOnlyKey, videoCodecs } from '@kino/proto/contract';
import type { PresentedCaptionTrack } from './caption-tracks.ts';
import { estimateViews, formatDuration, formatViews } from './format.ts';

/** `thumbnailUrl` is resolved by the caller (thumbnail-urls.ts): it may carry a token, or be null. */
export function presentVideoListItem(video: Video, thumbnailUrl: string | null, segmentsServed: number) {
  return {
    id: video.id,
    name: video.name,
    duration: formatDuration(video.duration_seconds),
    durationSeconds: video.duration_seconds ?? 0,
    createdAt: video.created_at.toISOString(),
    thumbnailUrl,
    ...(video.description ? { description: video.description } : {}),
    status: video.status,
    served: formatViews(estimateViews(segmentsServed, video.duration_seconds)),
    allowPublicAccess: video.allow_public_access,
    videoQuality: video.video_quality,
    ...presentMetadata(video),
  };
}

/** `{metadata}` with the fields that are set, or nothing when none is. */
function presentMetadata(video: Video): {
  metadata?: { externalId?: string; creatorId?: string; passthrough?: string };
} {
  const metadata = {
    ...(video.external_id !== null ? { externalId: video.external_id } : {}),
    ...(video.creator_id !== null ? { creatorId: video.creator_id } : {}),
    ...(video.passthrough !== null ? { passthrough: video.passthrough } : {}),
  };
  return Object.keys(metadata).length > 0 ? { metadata } : {};
}

export function presentEncoding(rendition: Rendition) {
  return {
    key: rendition.key,
    shortEdgePixels: rendition.short_edge_pixels,
    shortEdgeIsWidth: rendition.short_edge_is_width,
    videoStreamBitrate: rendition.video_bitrate_kbps,
    audioStreamBitrate: rendition.audio_bitrate_kbps,
    audioFormat: rendition.audio_format,
    maxFrameRate: rendition.frame_rate,
    pixelFormat: rendition.pixel_format,
    rateControlMode: rendition.rate_control_mode,
    twoPassVBREncoding: rendition.two_pass,
    compressionRatio: rendition.compression_ratio,
    videoCodec: rendition.video_codec,
    // Null until the farm measured it (and for renditions made before it could).
    ...(rendition.vmaf !== null ? { vmaf: Math.round(rendition.vmaf * 100) / 100 } : {}),
    ...(rendition.average_bandwidth !== null ? { averageBitrate: Math.round(rendition.average_bandwidth / 1000) } : {}),
  };
}

/**
 * The H.264 ladder first, as it was before other codecs existed, then each added codec's renditions
 * (in `videoCodecs` order); within a codec, listRenditions' order (smallest first). A picture's copy
 * without sound (`720p-v`, made when a track was added to a video whose sound was in its pictures)
 * is its original again, and is not listed.
 */
function inLadderOrder(renditions: Rendition[]): Rendition[] {
  const ladder = renditions.filter((rendition) => !isPictureOnlyKey(rendition.key));
  return videoCodecs.flatMap((codec) => ladder.filter((rendition) => rendition.video_codec === codec));
}

export function presentVideoDetails(
  video: Video,
  renditions: Rendition[],
  thumbnailUrl: string | null,
  segmentsServed: number,
  /** Files on the delivery host, each absent while the video has none. */
  { storyboardUrl, audioUrl }: { storyboardUrl: string | undefined; audioUrl: string | undefined },
  captions: PresentedCaptionTrack[],
  /** Why some of its encodes wait: no live node can run them (the encode queue's `waiting_for`). */
  waitingFor?: string,
  /** A broadcast's video: whether the broadcast still runs (its stream's active video is this one). */
  live?: boolean,
) {
  const parameters = video.parameters;
  return {
    ...presentVideoListItem(video, thumbnailUrl, segmentsServed),
    publicID: video.id,
    envId: video.env_id,
    status: {
      ready: video.status === 'ready',
      transcoding: video.status === 'transcoding',
      failed: video.status === 'failed',
    },
    ...(video.status === 'failed' && video.failure_reason ? { failureReason: video.failure_reason } : {}),
    ...(waitingFor ? { waitingFor } : {}),
    maxEdgeLength: parameters.maxEdgeLength,
    maxFrameRate: parameters.maxFrameRate,
    pixelFormat: parameters.pixelFormat,
    rateControlMode: parameters.rateControlMode,
    twoPassVBREncoding: parameters.twoPassVBREncoding,
    compressionRatio: parameters.compressionRatio,
    audioCodec: parameters.audioCodec,
    // Videos processed before these options existed have neither: they were made fixed, in H.264 alone.
    encodingMode: parameters.encodingMode ?? 'fixed',
    additionalCodecs: parameters.additionalCodecs ?? [],
    nodeLabels: parameters.nodeLabels ?? [],
    hardwareEncoding: parameters.hardwareEncoding ?? 'never',
    ...(parameters.watermark ? { watermark: parameters.watermark } : {}),
    // Read from the probe when the video became ready; videos made before it was read have none.
    ...(video.source_dynamic_range !== null ? { sourceDynamicRange: video.source_dynamic_range } : {}),
    encodings: inLadderOrder(renditions).map(presentEncoding),
    ...(storyboardUrl ? { storyboardUrl } : {}),
    ...(audioUrl ? { audioUrl } : {}),
    captions,
    ...(video.clip_of_video_id !== null
      ? {
          clipOf: {
            videoId: video.clip_of_video_id,
            startTime: video.clip_start_seconds!,
            endTime: video.clip_end_seconds!,
          },
        }
      : {}),
    ...(video.live_stream_id !== null ? { liveStreamId: video.live_stream_id, live: live ?? false } : {}),
  };
}
