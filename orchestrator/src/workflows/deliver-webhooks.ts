// deliverWebhooks: sends one video event to every webhook of the video's environment that wants it.
// Started by processVideo as an abandoned child: it outlives the video's workflow and never holds
// it back. Each endpoint gets its own retried activity; one dead endpoint does not delay another.
import { ActivityFailure, ApplicationFailure, log, proxyActivities, uuid4 } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { DeliverWebhooksInput } from '@kino/proto/contract';
import { failureTypes } from '../activity-types.ts';

const database = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 12 },
});

/**
 * One POST per attempt. The backoff follows the Standard Webhooks practice of spreading retries
 * over many hours (5 s, 15 s, 45 s, ~2 min, ~7 min, ~20 min, 1 h, 3 h, 6 h, 6 h: about 17 h).
 */
const sending = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 3,
    maximumInterval: '6 hours',
    maximumAttempts: 11,
    nonRetryableErrorTypes: [failureTypes.webhookGone],
  },
});

export async function deliverWebhooks({
  payload,
}: DeliverWebhooksInput): Promise<{ delivered: number; failed: number }> {
  const subscriptions = await database.listWebhookSubscriptions({ videoId: payload.videoId, event: payload.event });
  let delivered = 0;
  let failed = 0;
  await Promise.all(
    subscriptions.map(async ({ webhookId }) => {
      // Same id on every retry of this message: receivers drop duplicates by it.
      const messageId = `msg_${uuid4().replaceAll('-', '')}`;
      try {
        await sending.sendWebhook({ webhookId, messageId, payload });
        delivered += 1;
      } catch (error) {
        failed += 1;
        const gone =
          error instanceof ActivityFailure &&
          error.cause instanceof ApplicationFailure &&
          error.cause.type === failureTypes.webhookGone;
        log.warn(gone ? 'webhook deleted before delivery' : 'webhook delivery gave up', {
          videoId: payload.videoId,
          webhookId,
          event: payload.event,
          error: String(error instanceof ActivityFailure ? (error.cause ?? error) : error),
        });
      }
    }),
  );
  return { delivered, failed };
}
