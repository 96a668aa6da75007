import type { APIPromise } from '../api-promise.ts';
import type { CallOptions, HttpClient } from '../http.ts';
import type { CreatedWebhook, CreateWebhookParams, Webhook, WebhookDelivery, WebhookPayload } from '../types.ts';
import { verifyWebhook, type WebhookHeaders } from '../webhook-signature.ts';

export class Webhooks {
  private readonly http: HttpClient;
  constructor(http: HttpClient) {
    this.http = http;
  }

  private path(orgId: string, envId: string): string {
    return `/${encodeURIComponent(orgId)}/environments/${encodeURIComponent(envId)}/webhooks`;
  }

  /**
   * Registers a URL for the video events (every one unless `events` names some). Deliveries are
   * signed per Standard Webhooks with the returned `secret`, which is shown this once.
   * @example
   * const { id, secret } = await kino.webhooks.create(orgId, envId, {
   *   url: 'https://example.com/kino-events',
   *   events: ['video.processing.completed'],
   * });
   */
  create(
    orgId: string,
    envId: string,
    params: CreateWebhookParams,
    options: CallOptions = {},
  ): APIPromise<CreatedWebhook> {
    return this.http.request<CreatedWebhook>('POST', this.path(orgId, envId), { ...options, body: params });
  }

  /**
   * The webhooks of an environment (without their secrets).
   * @example
   * for (const webhook of await kino.webhooks.list(orgId, envId)) console.log(webhook.url, webhook.events);
   */
  list(orgId: string, envId: string, options: CallOptions = {}): APIPromise<Webhook[]> {
    return this.http
      .request<{ webhooks: Webhook[] }>('GET', this.path(orgId, envId), options)
      .map((body) => body.webhooks);
  }

  /**
   * Removes a webhook: no further deliveries.
   * @example
   * await kino.webhooks.delete(orgId, envId, 'whk_123');
   */
  delete(orgId: string, envId: string, webhookId: string, options: CallOptions = {}): APIPromise<void> {
    return this.http
      .request<unknown>('DELETE', `${this.path(orgId, envId)}/${encodeURIComponent(webhookId)}`, options)
      .map(() => undefined);
  }

  /**
   * The webhook's latest delivery attempts, newest first (each retry and redelivery is an entry).
   * @example
   * for (const d of await kino.webhooks.deliveries(orgId, envId, 'whk_123')) console.log(d.event, d.attempt, d.responseStatus, d.error);
   */
  deliveries(
    orgId: string,
    envId: string,
    webhookId: string,
    options: CallOptions = {},
  ): APIPromise<WebhookDelivery[]> {
    return this.http
      .request<{ deliveries: WebhookDelivery[] }>(
        'GET',
        `${this.path(orgId, envId)}/${encodeURIComponent(webhookId)}/deliveries`,
        options,
      )
      .map((body) => body.deliveries);
  }

  /**
   * Sends a logged delivery's message again, once (same body and webhook-id); answers the new attempt.
   * @example
   * const attempt = await kino.webhooks.redeliver(orgId, envId, 'whk_123', 'whd_456');
   * if (attempt.error) console.log('still failing:', attempt.error);
   */
  redeliver(
    orgId: string,
    envId: string,
    webhookId: string,
    deliveryId: string,
    options: CallOptions = {},
  ): APIPromise<WebhookDelivery> {
    const path = `${this.path(orgId, envId)}/${encodeURIComponent(webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`;
    return this.http.request<WebhookDelivery>('POST', path, options);
  }

  /**
   * Sends a `webhook.test` event to the webhook, once; answers the attempt.
   * @example
   * const attempt = await kino.webhooks.test(orgId, envId, 'whk_123');
   * console.log(attempt.responseStatus);
   */
  test(orgId: string, envId: string, webhookId: string, options: CallOptions = {}): APIPromise<WebhookDelivery> {
    return this.http.request<WebhookDelivery>(
      'POST',
      `${this.path(orgId, envId)}/${encodeURIComponent(webhookId)}/test`,
      options,
    );
  }

  /**
   * Checks a delivery's Standard Webhooks signature with the webhook's secret and returns its
   * parsed body; throws `WebhookVerificationError` when the signature, id or timestamp (within five
   * minutes) does not check out. Pass the raw body, as received.
   * @example
   * // Express: app.post('/kino-events', express.raw({ type: 'application/json' }), async (req, res) => { ... })
   * const event = await kino.webhooks.verify(req.body, req.headers, process.env.KINO_WEBHOOK_SECRET);
   * if (event.event === 'video.processing.completed') console.log(event.videoId, 'is ready:', event.data.encodings.length, 'renditions');
   */
  verify(
    body: string | Uint8Array,
    headers: WebhookHeaders,
    secret: string,
    options: { now?: number } = {},
  ): Promise<WebhookPayload> {
    return verifyWebhook(body, headers, secret, options);
  }
}
