// Sends one webhook message to one endpoint, signed per Standard Webhooks. One POST per attempt:
// the retries, with backoff, are the activity's (see workflows/deliver-webhooks.ts).
import { ApplicationFailure } from '@temporalio/common';
import { Agent, fetch as undiciFetch } from 'undici';
import { failureTypes, type SendWebhookInput } from '../contracts.ts';
import { pinnedLookup, resolveWebhookDestination, WebhookDestinationError } from '../../network/webhook-destinations.ts';
import { signWebhook } from '../webhook-signature.ts';
import { findLiveWebhook } from '@kino/database/repositories';
import { createOrchestratorMetrics } from '../metrics.ts';
import type { ActivityDeps } from './index.ts';

const requestTimeoutMs = 15_000;

/** fetch, with undici's `dispatcher` (the connection pinned to the checked addresses). */
export type WebhookFetch = (url: string, init: RequestInit & { dispatcher?: Agent }) => Promise<Response>;

export function createWebhookActivities({
  db,
  logger,
  fetch: send = undiciFetch as unknown as WebhookFetch,
  webhookDestinations = { allowPrivate: false },
  metrics = createOrchestratorMetrics(),
}: Pick<ActivityDeps, 'db' | 'logger' | 'fetch' | 'webhookDestinations' | 'metrics'>) {
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
      // Checked again at each send (docs/security.md#webhook-destinations): the name may point
      // elsewhere since registration. The socket connects to the addresses checked here, nothing else.
      let dispatcher: Agent | undefined;
      if (!webhookDestinations.allowPrivate) {
        try {
          const addresses = await resolveWebhookDestination(hook.url, webhookDestinations.resolve);
          dispatcher = new Agent({ connect: { lookup: pinnedLookup(addresses) } });
        } catch (error) {
          if (!(error instanceof WebhookDestinationError)) throw error;
          deliveries.inc({ result: 'blocked' });
          log.warn({ reason: error.reason, err: error }, 'webhook destination refused');
          // A name that does not resolve may again; one that resolves to a private address is refused for good.
          if (error.reason === 'not_public') throw ApplicationFailure.nonRetryable(error.message, failureTypes.webhookDestinationRefused);
          throw new Error(`webhook endpoint unreachable: ${error.message}`);
        }
      }
      let response: Response;
      try {
        response = await send(hook.url, {
          method: 'POST',
          headers: { ...headers, 'user-agent': 'Kino-Webhooks/1' },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(requestTimeoutMs),
          ...(dispatcher ? { dispatcher } : {}),
        });
        await response.body?.cancel();
      } catch (error) {
        deliveries.inc({ result: 'unreachable' });
        log.warn({ err: error }, 'webhook endpoint unreachable');
        throw new Error(`webhook endpoint unreachable: ${(error as Error).message}`);
      } finally {
        void dispatcher?.close();
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
