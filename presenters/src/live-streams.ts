// A live stream's row as the interface's resource. The API answers with it (adding the stream key
// and the ingest URLs, which carry it); the live stream webhooks carry it as it is here, without
// the key: a delivery's body is kept (the delivery log, the workflow's history).
import type { LiveStream } from '@kino/database';
import { isBroadcasting } from '@kino/database/repositories';
import {
  deliveryPaths,
  type LiveStreamStatus,
  type LiveStreamWebhookEvent,
  type LiveStreamWebhookPayload,
} from '@kino/proto/contract';

/** Derived, never stored: `disabled` while disabled, `active` while a broadcast runs, else `idle`. */
export function liveStreamStatusOf(stream: LiveStream, now = new Date()): LiveStreamStatus {
  if (stream.disabled_at) return 'disabled';
  return isBroadcasting(stream, now) ? 'active' : 'idle';
}

/** The stream as the API answers it, less `streamKey` and `ingest`. */
export function presentLiveStream(stream: LiveStream, deliveryUrl: string, now = new Date()) {
  const master = `${deliveryUrl}${deliveryPaths.publicFile(stream.org_id, stream.env_id, stream.id, 'master.m3u8')}`;
  const broadcasting = isBroadcasting(stream, now);
  return {
    liveStreamId: stream.id,
    name: stream.name,
    status: liveStreamStatusOf(stream, now),
    latency: stream.latency,
    allowPublicAccess: stream.allow_public_access,
    videoQuality: stream.video_quality,
    record: stream.record,
    reconnectWindowSeconds: stream.reconnect_window_seconds,
    playback: { master: stream.allow_public_access ? master : null },
    activeVideoId: broadcasting ? stream.active_video_id : null,
    createdAt: stream.created_at.toISOString(),
  };
}
export type PresentedLiveStream = ReturnType<typeof presentLiveStream>;

/**
 * A live stream event's body: the stream as it is now (read just after the change), and the
 * broadcast's video. Ingest sends `active`, `disconnected` and `idle`; the broadcast's workflow
 * `recording.ready`.
 */
export function liveStreamEventPayload(
  event: LiveStreamWebhookEvent,
  {
    stream,
    videoId,
    deliveryUrl,
    timestamp,
  }: { stream: LiveStream; videoId: string; deliveryUrl: string; timestamp: Date },
): LiveStreamWebhookPayload {
  const data = presentLiveStream(stream, deliveryUrl, timestamp);
  return { event, liveStreamId: stream.id, videoId, status: data.status, timestamp: timestamp.toISOString(), data };
}
