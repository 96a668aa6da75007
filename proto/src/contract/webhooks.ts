// Webhooks as their receivers see them: the events one can subscribe to and the JSON body of a delivery.

export const webhookEvents = ['video.processing.completed', 'video.processing.failed'] as const;
export type WebhookEvent = (typeof webhookEvents)[number];

/** The JSON body of a webhook delivery. */
export interface WebhookPayload {
  event: WebhookEvent;
  videoId: string;
  status: 'ready' | 'failed';
  /** ISO 8601, when the transition happened. */
  timestamp: string;
  data: Record<string, unknown>;
}
