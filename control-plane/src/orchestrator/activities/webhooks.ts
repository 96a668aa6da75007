// Sends one webhook message to one endpoint, signed per Standard Webhooks. One POST per attempt:
// the retries, with backoff, are the activity's (see workflows/deliver-webhooks.ts).
import { ApplicationFailure } from '@temporalio/common';
import { failureTypes, type SendWebhookInput } from '../contracts.ts';
import { signWebhook } from '../webhook-signature.ts';
import { findLiveWebhook } from '../../repositories/webhooks.ts';
import { createOrchestratorMetrics } from '../metrics.ts';
import type { ActivityDeps } from './index.ts';

const requestTimeoutMs = 15_000;

export function createWebhookActivities({
  db,
  logger,
  fetch: send = fetch,
  metrics = createOrchestratorMetrics(),
}: Pick<ActivityDeps, 'db' | 'logger' | 'fetch' | 'metrics'>) {
  const deliveries = metrics.webhookDeliveries;
  return {
    async sendWebhook({ webhookId, messageId, payload }: SendWebhookInput): Promise<{ status: number }> {
      // Read at send time: the secret never enters workflow history, and a deleted endpoint gets nothing.
      const hook = await findLiveWebhook(db, webhookId);
      if (!hook) {
        deliveries.inc({ result: 'gone' });
        throw ApplicationFailure.nonRetryable(`webhook ${webhookId} was deleted`, failureTypes.webhookGone);
      }
      const body = JSON.stringify(payload);
      const headers = signWebhook(hook.secret, messageId, Math.floor(Date.now() / 1000), body);
      const log = logger.child({ videoId: payload.videoId, webhookId, messageId, event: payload.event });
      let response: Response;
      try {
        response = await send(hook.url, {
          method: 'POST',
          headers: { ...headers, 'user-agent': 'Kino-Webhooks/1' },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(requestTimeoutMs),
        });
        await response.body?.cancel();
      } catch (error) {
        deliveries.inc({ result: 'unreachable' });
        log.warn({ err: error }, 'webhook endpoint unreachable');
        throw new Error(`webhook endpoint unreachable: ${(error as Error).message}`);
      }
      if (response.status < 200 || response.status >= 300) {
        deliveries.inc({ result: 'refused' });
        log.warn({ status: response.status }, 'webhook endpoint refused the delivery');
        throw new Error(`webhook endpoint answered ${response.status}`);
      }
      deliveries.inc({ result: 'delivered' });
      log.info({ status: response.status }, 'webhook delivered');
      return { status: response.status };
    },
  };
}
