// Webhooks as their receivers see them: the events one can subscribe to and the JSON body of a delivery.
import type { LiveStreamStatus } from './live-streams.ts';

/** Every video lifecycle event (docs/decisions/api.md#webhooks). */
export const videoWebhookEvents = [
  'video.created',
  'video.processing.completed',
  'video.processing.failed',
  'video.updated',
  'video.deleted',
  'video.caption.ready',
] as const;
export type VideoWebhookEvent = (typeof videoWebhookEvents)[number];

/**
 * A live stream's events (docs/decisions/live.md, "Webhooks"): a broadcast started, its publisher
 * dropped (the reconnect window open), the broadcast ended, its recording's video turned ready.
 */
export const liveStreamWebhookEvents = [
  'live_stream.active',
  'live_stream.disconnected',
  'live_stream.idle',
  'live_stream.recording.ready',
] as const;
export type LiveStreamWebhookEvent = (typeof liveStreamWebhookEvents)[number];

/** Every event; a webhook subscribes to all unless it names some. */
export const webhookEvents = [...videoWebhookEvents, ...liveStreamWebhookEvents] as const;
export type WebhookEvent = (typeof webhookEvents)[number];

/** The event `POST .../webhooks/{id}/test` sends: to that webhook only, whatever it subscribes to. */
export const webhookTestEvent = 'webhook.test';

/**
 * The status a video event reports: the video's, or `deleted` for `video.deleted`.
 */
export type WebhookVideoStatus = 'transcoding' | 'ready' | 'failed' | 'deleted';

/** The JSON body of a video event's delivery. `data` is the video's details object, as GET details answers it. */
export interface VideoWebhookPayload {
  event: VideoWebhookEvent;
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

/**
 * The JSON body of a live stream's event. `videoId` is the broadcast's video (the recording, for
 * `live_stream.recording.ready`); `data` is the stream as the API answers it at that moment, less
 * its `streamKey` and `ingest` URLs: the key is the publisher's credential, and a delivery's body is
 * kept (the delivery log, the workflow's history).
 */
export interface LiveStreamWebhookPayload {
  event: LiveStreamWebhookEvent;
  liveStreamId: string;
  videoId: string;
  status: LiveStreamStatus;
  /** ISO 8601, when it happened. */
  timestamp: string;
  data: Record<string, unknown>;
}

/** The body of an event one subscribes to: a video's or a live stream's. */
export type EventWebhookPayload = VideoWebhookPayload | LiveStreamWebhookPayload;

/** The JSON body of any delivery. */
export type WebhookPayload = EventWebhookPayload | TestWebhookPayload;

/** How many deliveries (attempts) a webhook's log keeps: older ones are pruned as new ones are written. */
export const webhookDeliveryLogSize = 100;
