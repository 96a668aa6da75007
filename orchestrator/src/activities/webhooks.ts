// The sendWebhook activity: one attempt of one message to one endpoint (network/webhook-sender.ts),
// which throws when the attempt failed so that Temporal retries it with backoff
// (workflows/deliver-webhooks.ts). videoDetails makes the `data` of the workflow's own events.
import { ApplicationFailure } from '@temporalio/common';
import { failureTypes, type SendWebhookInput } from '../activity-types.ts';
import { findLiveWebhook, getLiveStream, listWebhookSubscribers } from '@kino/database/repositories';
import { sendWebhookMessage } from '@kino/webhooks';
import { liveStreamEventPayload, loadVideoDetails } from '@kino/presenters';
import type { LiveStreamWebhookEvent, LiveStreamWebhookPayload } from '@kino/proto/contract';
import { createOrchestratorMetrics } from '../metrics.ts';
import type { ActivityDeps } from './index.ts';

export function createWebhookActivities({
  db,
  logger,
  fetch,
  webhookDestinations = { allowPrivate: false },
  metrics = createOrchestratorMetrics(),
  videoDetails,
}: Pick<ActivityDeps, 'db' | 'logger' | 'fetch' | 'webhookDestinations' | 'metrics' | 'videoDetails'>) {
  const deliveries = metrics.webhookDeliveries;
  return {
    async sendWebhook({ webhookId, messageId, payload }: SendWebhookInput): Promise<{ status: number }> {
      // Read at send time: the secret never enters workflow history, and a deleted endpoint gets nothing.
      const hook = await findLiveWebhook(db, webhookId);
      if (!hook) {
        deliveries.inc({ result: 'gone' });
        throw ApplicationFailure.nonRetryable(`webhook ${webhookId} was deleted`, failureTypes.webhookGone);
      }
      const { result, delivery } = await sendWebhookMessage(
        { db, logger, webhookDestinations, ...(fetch ? { fetch } : {}) },
        { hook, messageId, payload },
      );
      deliveries.inc({ result });
      if (result === 'blocked')
        throw ApplicationFailure.nonRetryable(delivery.error!, failureTypes.webhookDestinationRefused);
      if (result !== 'delivered') throw new Error(delivery.error!);
      return { status: delivery.response_status! };
    },

    /** The details object of a video, as GET details answers it (its view count aside: 0 here, with no analytics store). */
    async videoDetails({ videoId }: { videoId: string }): Promise<Record<string, unknown> | null> {
      if (!videoDetails)
        throw ApplicationFailure.nonRetryable(
          'DELIVERY_URL and KINO_KEY_ENCRYPTION_KEY are not configured',
          'details_unconfigured',
        );
      return (await loadVideoDetails({ db, config: videoDetails }, videoId)) ?? null;
    },

    /**
     * A live stream event's body (`data` the stream as it is now), or null when no webhook wants it
     * or the stream is gone: the broadcast's workflow then starts no delivery.
     */
    async liveStreamEvent({
      event,
      liveStreamId,
      videoId,
    }: {
      event: LiveStreamWebhookEvent;
      liveStreamId: string;
      videoId: string;
    }): Promise<LiveStreamWebhookPayload | null> {
      if (!videoDetails)
        throw ApplicationFailure.nonRetryable('DELIVERY_URL is not configured', 'details_unconfigured');
      if ((await listWebhookSubscribers(db, { videoId, event })).length === 0) return null;
      const stream = await getLiveStream(db, liveStreamId);
      if (!stream) return null;
      return liveStreamEventPayload(event, {
        stream,
        videoId,
        deliveryUrl: videoDetails.DELIVERY_URL,
        timestamp: new Date(),
      });
    },
  };
}
