// Activities on the `videos`, `renditions` and `webhooks` rows: short database work.
import type { VideoQuality, WebhookEvent } from '@kino/proto/contract';
import type { MarkReadyInput, VideoJob } from '../contracts.ts';
import type { ActivityDeps } from './index.ts';

export function createVideoRecordActivities({ db, logger }: Pick<ActivityDeps, 'db' | 'logger'>) {
  return {
    /** The video as processing needs it, or null when there is no such video. */
    async loadVideoJob(videoId: string): Promise<VideoJob | null> {
      const row = await db
        .selectFrom('videos')
        .select(['id', 'storage_path', 'video_quality', 'parameters', 'status', 'deleted_at'])
        .where('id', '=', videoId)
        .executeTakeFirst();
      if (!row) return null;
      return {
        videoId: row.id,
        storagePath: row.storage_path,
        quality: row.video_quality as VideoQuality,
        parameters: row.parameters,
        status: row.status,
        deleted: row.deleted_at !== null,
      };
    },

    /**
     * Records the ladder and makes the video `ready`, in one transaction. Returns false (and
     * changes nothing) when the video was deleted meanwhile.
     */
    async markVideoReady({ videoId, probe, renditions, thumbnailKey }: MarkReadyInput): Promise<boolean> {
      const marked = await db.transaction().execute(async (trx) => {
        const video = await trx.selectFrom('videos').select(['deleted_at']).where('id', '=', videoId).forUpdate().executeTakeFirst();
        if (!video || video.deleted_at) return false;
        // A retried video replaces its earlier ladder.
        await trx.deleteFrom('renditions').where('video_id', '=', videoId).execute();
        await trx
          .insertInto('renditions')
          .values(
            renditions.map(({ plan, outcome }) => ({
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
              codecs: outcome.codecs,
              bandwidth: Math.round(outcome.bandwidth),
              segment_count: outcome.segmentCount,
            })),
          )
          .execute();
        const now = new Date();
        await trx
          .updateTable('videos')
          .set({
            status: 'ready',
            failure_reason: null,
            duration_seconds: probe.durationSeconds,
            source_width: probe.width,
            source_height: probe.height,
            source_frame_rate: probe.frameRate,
            thumbnail_key: thumbnailKey,
            ready_at: now,
            updated_at: now,
          })
          .where('id', '=', videoId)
          .execute();
        return true;
      });
      logger.info({ videoId, marked, renditions: renditions.map((r) => r.plan.key) }, marked ? 'video ready' : 'video deleted before ready');
      return marked;
    },

    async markVideoFailed({ videoId, reason }: { videoId: string; reason: string }): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('renditions').where('video_id', '=', videoId).execute();
        await trx
          .updateTable('videos')
          .set({ status: 'failed', failure_reason: reason, updated_at: new Date() })
          .where('id', '=', videoId)
          .where('deleted_at', 'is', null)
          .execute();
      });
      logger.warn({ videoId, reason }, 'video failed');
    },

    /** The webhooks of the video's environment that want `event`: ids only, secrets stay out of workflow history. */
    async listWebhookSubscriptions({ videoId, event }: { videoId: string; event: WebhookEvent }): Promise<Array<{ webhookId: string }>> {
      const hooks = await db
        .selectFrom('webhooks as w')
        .innerJoin('videos as v', (join) => join.onRef('v.env_id', '=', 'w.env_id').onRef('v.org_id', '=', 'w.org_id'))
        .select(['w.id', 'w.events'])
        .where('v.id', '=', videoId)
        .where('w.deleted_at', 'is', null)
        .orderBy('w.created_at')
        .execute();
      // No event list means every event.
      return hooks.filter((h) => !h.events || h.events.length === 0 || h.events.includes(event)).map((h) => ({ webhookId: h.id }));
    },
  };
}
