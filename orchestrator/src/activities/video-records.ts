// Activities on the `videos`, `renditions` and `webhooks` rows: short database work, each through
// the repository that is the one writer of its table.
import type { VideoQuality, WebhookEvent } from '@kino/proto/contract';
import { announceVideoEvent } from '@kino/database';
import type { MarkReadyInput, RenditionResult, VideoJob } from '../activity-types.ts';
import {
  environmentJustInTime,
  getLiveStream,
  getVideo,
  markClipReady,
  markVideoFailed,
  markVideoReady,
  listWebhookSubscribers,
  type NewRendition,
} from '@kino/database/repositories';
import type { ActivityDeps } from './index.ts';
import { defaultJustInTimeRunSeconds } from '../chunks.ts';

export function createVideoRecordActivities({
  db,
  logger,
  justInTime,
}: Pick<ActivityDeps, 'db' | 'logger' | 'justInTime'>) {
  return {
    /**
     * Whether the video is published just in time (its environment's setting, else the farm's
     * JUST_IN_TIME), the length of its runs, and `bootstrap: false` when JUST_IN_TIME_BOOTSTRAP is
     * off (absent in histories recorded before it: on); null: published whole. Read once per video.
     */
    async justInTimeRuns({ videoId }: { videoId: string }): Promise<{ runSeconds: number; bootstrap?: false } | null> {
      const setting = await environmentJustInTime(db, videoId);
      const enabled = setting ?? justInTime?.enabled ?? false;
      if (!enabled) return null;
      const runSeconds = justInTime?.runSeconds ?? defaultJustInTimeRunSeconds;
      return justInTime?.bootstrap === false ? { runSeconds, bootstrap: false } : { runSeconds };
    },

    /** The video as processing needs it, or null when there is no such video. */
    async loadVideoJob(videoId: string): Promise<VideoJob | null> {
      const video = await getVideo(db, videoId);
      if (!video) return null;
      const stream = video.live_stream_id ? await getLiveStream(db, video.live_stream_id) : undefined;
      return {
        ...(stream ? { liveLatency: stream.latency } : {}),
        videoId: video.id,
        storagePath: video.storage_path,
        ...(video.source_url ? { sourceUrl: video.source_url } : {}),
        quality: video.video_quality as VideoQuality,
        parameters: video.parameters,
        status: video.status,
        deleted: video.deleted_at !== null,
      };
    },

    /**
     * Records the ladder and makes the video `ready`, in one transaction. Returns false (and
     * changes nothing) when the video was deleted meanwhile.
     */
    async markVideoReady({
      videoId,
      probe,
      renditions,
      thumbnailKey,
      storyboardKey,
      audioKey,
      segmentsPending,
    }: MarkReadyInput): Promise<boolean> {
      const marked = await markVideoReady(db, videoId, {
        source: probe,
        thumbnailKey,
        storyboardKey,
        audioKey,
        segmentsPending: segmentsPending ?? false,
        renditions: renditions.map((result) => renditionRowOf(videoId, result)),
      });
      logger.info(
        { videoId, marked, renditions: renditions.map((r) => r.plan.key) },
        marked ? 'video ready' : 'video deleted before ready',
      );
      return marked;
    },

    /**
     * Makes a frame-accurate clip `ready` with its source's ladder, `durationSeconds` long in
     * `segmentCount` segments. False when the clip, or the source whose ladder it takes, is gone.
     */
    async markClipReady({
      videoId,
      sourceVideoId,
      durationSeconds,
      segmentCount,
    }: {
      videoId: string;
      sourceVideoId: string;
      durationSeconds: number;
      segmentCount: number;
    }): Promise<boolean> {
      const source = await getVideo(db, sourceVideoId);
      const marked = source ? await markClipReady(db, videoId, source, { durationSeconds, segmentCount }) : false;
      logger.info({ videoId, sourceVideoId, marked }, marked ? 'clip ready' : 'clip deleted before ready');
      return marked;
    },

    async markVideoFailed({ videoId, reason }: { videoId: string; reason: string }): Promise<void> {
      const marked = await markVideoFailed(db, videoId, reason);
      if (marked) logger.warn({ videoId, reason }, 'video failed');
      else logger.warn({ videoId, reason }, 'video failed, but it is no longer live and unfinished: left as it is');
    },

    ...createWebhookSubscriptionActivities({ db }),
  };
}

function createWebhookSubscriptionActivities({ db }: Pick<ActivityDeps, 'db'>) {
  return {
    /**
     * The webhooks of the video's environment that want `event`: ids only, secrets stay out of
     * workflow history. The first step of every delivery workflow, so it also announces the event to
     * listeners inside Kino (the dashboard), subscribed or not; a retry announces it again, which a
     * listener takes as one more reason to read the video.
     */
    async listWebhookSubscriptions({
      videoId,
      event,
    }: {
      videoId: string;
      event: WebhookEvent;
    }): Promise<Array<{ webhookId: string }>> {
      await announceVideoEvent(db, { event, videoId, timestamp: new Date().toISOString() });
      const webhooks = await listWebhookSubscribers(db, { videoId, event });
      return webhooks.map((webhook) => ({ webhookId: webhook.id }));
    },
  };
}

/** A made rendition's row: its plan's settings, the encode's figures. */
export function renditionRowOf(videoId: string, { plan, outcome }: RenditionResult): NewRendition {
  return {
    video_id: videoId,
    key: plan.key,
    width: outcome.width || plan.width,
    height: outcome.height || plan.height,
    short_edge_pixels: plan.shortEdgePixels,
    short_edge_is_width: plan.shortEdgeIsWidth,
    video_bitrate_kbps: plan.videoBitrateKbps,
    audio_bitrate_kbps: plan.audioBitrateKbps,
    audio_format: plan.audioBitrateKbps > 0 ? plan.audioCodec : 'none',
    frame_rate: plan.frameRate,
    pixel_format: plan.pixelFormat,
    rate_control_mode: plan.rateControlMode,
    two_pass: plan.twoPass,
    compression_ratio: plan.compressionRatio,
    video_codec: plan.videoCodec ?? 'h264',
    codecs: outcome.codecs,
    bandwidth: Math.round(outcome.bandwidth),
    average_bandwidth: Math.round(outcome.averageBandwidth),
    vmaf: outcome.quality?.vmaf ?? null,
    segment_count: outcome.segmentCount,
  };
}
