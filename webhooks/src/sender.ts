// Sends one webhook message to one endpoint, signed per Standard Webhooks, and writes the attempt to
// the webhook's delivery log. One POST per call: the orchestrator's sendWebhook activity retries it
// with backoff (workflows/deliver-webhooks.ts); the API calls it once for a redelivery or a test.
import { Agent, fetch as undiciFetch } from 'undici';
import type { Logger } from '@kino/infra';
import type { WebhookPayload } from '@kino/proto/contract';
import type { Db, Webhook, WebhookDelivery } from '@kino/database';
import { recordWebhookDelivery } from '@kino/database/repositories';
import {
  pinnedLookup,
  resolveWebhookDestination,
  WebhookDestinationError,
  type WebhookDestinationPolicy,
} from './destinations.ts';
import { signWebhook } from './signature.ts';

const requestTimeoutMs = 15_000;

/** fetch, with undici's `dispatcher` (the connection pinned to the checked addresses). */
export type WebhookFetch = (url: string, init: RequestInit & { dispatcher?: Agent }) => Promise<Response>;

export interface WebhookSenderDeps {
  db: Db;
  logger: Logger;
  /** Sends webhook requests; undici's fetch unless a test hands in another. */
  fetch?: WebhookFetch;
  /** WEBHOOK_ALLOW_PRIVATE and the resolver; unset: public addresses only, the system's resolver. */
  webhookDestinations?: WebhookDestinationPolicy;
}

/**
 * How an attempt ended: `delivered` (2xx), `refused` (another status), `unreachable` (no answer, or
 * a name that did not resolve: either may work later), `blocked` (the name resolves to a private
 * address: refused for good).
 */
export type WebhookAttemptResult = 'delivered' | 'refused' | 'unreachable' | 'blocked';

export interface WebhookAttempt {
  result: WebhookAttemptResult;
  /** The attempt as the delivery log holds it. */
  delivery: WebhookDelivery;
}

export async function sendWebhookMessage(
  {
    db,
    logger,
    fetch: send = undiciFetch as unknown as WebhookFetch,
    webhookDestinations = { allowPrivate: false },
  }: WebhookSenderDeps,
  { hook, messageId, payload }: { hook: Webhook; messageId: string; payload: WebhookPayload },
): Promise<WebhookAttempt> {
  const body = JSON.stringify(payload);
  const headers = signWebhook(hook.secret, messageId, Math.floor(Date.now() / 1000), body);
  const log = logger.child({ videoId: payload.videoId, webhookId: hook.id, messageId, event: payload.event });
  const started = performance.now();
  const record = async (
    result: WebhookAttemptResult,
    responseStatus: number | null,
    error: string | null,
  ): Promise<WebhookAttempt> => {
    const delivery = await recordWebhookDelivery(db, {
      webhookId: hook.id,
      messageId,
      payload,
      responseStatus,
      durationMs: performance.now() - started,
      error,
    });
    return { result, delivery };
  };

  // Checked again at each send (docs/security.md#webhook-destinations): the name may point
  // elsewhere since registration. The socket connects to the addresses checked here, nothing else.
  let dispatcher: Agent | undefined;
  if (!webhookDestinations.allowPrivate) {
    try {
      const addresses = await resolveWebhookDestination(hook.url, webhookDestinations.resolve);
      dispatcher = new Agent({ connect: { lookup: pinnedLookup(addresses) } });
    } catch (error) {
      if (!(error instanceof WebhookDestinationError)) throw error;
      log.warn({ reason: error.reason, err: error }, 'webhook destination refused');
      // A name that does not resolve may again; one that resolves to a private address is refused for good.
      return record(error.reason === 'not_public' ? 'blocked' : 'unreachable', null, error.message);
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
    log.warn({ err: error }, 'webhook endpoint unreachable');
    return record('unreachable', null, `webhook endpoint unreachable: ${(error as Error).message}`);
  } finally {
    void dispatcher?.close();
  }
  if (response.status < 200 || response.status >= 300) {
    log.warn({ status: response.status }, 'webhook endpoint refused the delivery');
    return record('refused', response.status, `webhook endpoint answered ${response.status}`);
  }
  log.info({ status: response.status }, 'webhook delivered');
  return record('delivered', response.status, null);
}
