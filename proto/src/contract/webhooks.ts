// Webhooks as their receivers see them: the events one can subscribe to and the JSON body of a delivery.

/** Every video lifecycle event (docs/decisions/api.md#webhooks); a webhook subscribes to all unless it names some. */
export const webhookEvents = [
  'video.created',
  'video.processing.completed',
  'video.processing.failed',
  'video.updated',
  'video.deleted',
  'video.caption.ready',
] as const;
export type WebhookEvent = (typeof webhookEvents)[number];

/** The event `POST .../webhooks/{id}/test` sends: to that webhook only, whatever it subscribes to. */
export const webhookTestEvent = 'webhook.test';

/**
 * The status a video event reports: the video's, or `deleted` for `video.deleted`.
 */
export type WebhookVideoStatus = 'transcoding' | 'ready' | 'failed' | 'deleted';

/** The JSON body of a video event's delivery. `data` is the video's details object, as GET details answers it. */
export interface VideoWebhookPayload {
  event: WebhookEvent;
  videoId: string;
  status: WebhookVideoStatus;
  /** ISO 8601, when the change happened. */
  timestamp: string;
  data: Record<string, unknown>;
}

/** The JSON body of a test delivery: no video; `data` names the webhook. */
export interface TestWebhookPayload {
  event: typeof webhookTestEvent;
  videoId: null;
  status: null;
  timestamp: string;
  data: { webhookId: string; message: string };
}

/** The JSON body of any delivery. */
export type WebhookPayload = VideoWebhookPayload | TestWebhookPayload;

/** How many deliveries (attempts) a webhook's log keeps: older ones are pruned as new ones are written. */
export const webhookDeliveryLogSize = 100;
