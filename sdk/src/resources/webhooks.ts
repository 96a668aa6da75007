import type { HttpClient } from '../http.ts';
import type { CreatedWebhook, CreateWebhookParams, Webhook } from '../types.ts';

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
  create(orgId: string, envId: string, params: CreateWebhookParams, options: { signal?: AbortSignal } = {}): Promise<CreatedWebhook> {
    return this.http.request<CreatedWebhook>('POST', this.path(orgId, envId), { ...options, body: params });
  }

  /**
   * The webhooks of an environment (without their secrets).
   * @example
   * for (const webhook of await kino.webhooks.list(orgId, envId)) console.log(webhook.url, webhook.events);
   */
  async list(orgId: string, envId: string, options: { signal?: AbortSignal } = {}): Promise<Webhook[]> {
    const body = await this.http.request<{ webhooks: Webhook[] }>('GET', this.path(orgId, envId), options);
    return body.webhooks;
  }

  /**
   * Removes a webhook: no further deliveries.
   * @example
   * await kino.webhooks.delete(orgId, envId, 'whk_123');
   */
  async delete(orgId: string, envId: string, webhookId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.http.request<unknown>('DELETE', `${this.path(orgId, envId)}/${encodeURIComponent(webhookId)}`, options);
  }
}
