import type { APIPromise } from '../api-promise.ts';
import type { CallOptions, HttpClient } from '../http.ts';
import type { CreatedWebhook, CreateWebhookParams, Webhook, WebhookPayload } from '../types.ts';
import { verifyWebhook, type WebhookHeaders } from '../webhook-signature.ts';

export class Webhooks {
  constructor(private readonly http: HttpClient) {}

  private path(orgId: string, envId: string): string {
    return `/${encodeURIComponent(orgId)}/environments/${encodeURIComponent(envId)}/webhooks`;
  }

  /**
   * Registers a URL for `video.processing.completed` / `video.processing.failed`. Deliveries are
   * signed per Standard Webhooks with the returned `secret`, which is shown this once.
   * @example
   * const { id, secret } = await kino.webhooks.create(orgId, envId, {
   *   url: 'https://example.com/kino-events',
   *   events: ['video.processing.completed'],
   * });
   */
  create(orgId: string, envId: string, params: CreateWebhookParams, options: CallOptions = {}): APIPromise<CreatedWebhook> {
    return this.http.request<CreatedWebhook>('POST', this.path(orgId, envId), { ...options, body: params });
  }

  /**
   * The webhooks of an environment (without their secrets).
   * @example
   * for (const webhook of await kino.webhooks.list(orgId, envId)) console.log(webhook.url, webhook.events);
   */
  list(orgId: string, envId: string, options: CallOptions = {}): APIPromise<Webhook[]> {
    return this.http.request<{ webhooks: Webhook[] }>('GET', this.path(orgId, envId), options).map((body) => body.webhooks);
  }

  /**
   * Removes a webhook: no further deliveries.
   * @example
   * await kino.webhooks.delete(orgId, envId, 'whk_123');
   */
  delete(orgId: string, envId: string, webhookId: string, options: CallOptions = {}): APIPromise<void> {
    return this.http.request<unknown>('DELETE', `${this.path(orgId, envId)}/${encodeURIComponent(webhookId)}`, options).map(() => undefined);
  }

  /**
   * Checks a delivery's Standard Webhooks signature with the webhook's secret and returns its
   * parsed body; throws `WebhookVerificationError` when the signature, id or timestamp (within five
   * minutes) does not check out. Pass the raw body, as received.
   * @example
   * // Express: app.post('/kino-events', express.raw({ type: 'application/json' }), async (req, res) => { ... })
   * const event = await kino.webhooks.verify(req.body, req.headers, process.env.KINO_WEBHOOK_SECRET);
   * if (event.event === 'video.processing.completed') console.log(event.videoId, 'is ready');
   */
  verify(body: string | Uint8Array, headers: WebhookHeaders, secret: string, options: { now?: number } = {}): Promise<WebhookPayload> {
    return verifyWebhook(body, headers, secret, options);
  }
}
