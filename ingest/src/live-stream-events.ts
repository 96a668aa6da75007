// The live stream webhooks ingest sends (issue 56, docs/decisions/live.md "Webhooks"):
// `live_stream.active` when a broadcast starts, `live_stream.disconnected` when its publisher's
// connection ends (its reconnect window opens), `live_stream.idle` when the broadcast is over. Each
// is a deliverWebhooks workflow, as the API's events are: retried per endpoint, surviving restarts.
// A failure is logged, never the publisher's: a broadcast does not wait on its events.
import type { Db } from '@kino/database';
import { getLiveStream, listWebhookSubscribers } from '@kino/database/repositories';
import type { Logger } from '@kino/infra';
import { liveStreamEventPayload } from '@kino/presenters';
import type { LiveStreamWebhookEvent, LiveStreamWebhookPayload } from '@kino/proto/contract';
import type { HeldBroadcast } from './publish-sessions.ts';

export type IngestLiveStreamEvent = Exclude<LiveStreamWebhookEvent, 'live_stream.recording.ready'>;

export interface LiveStreamEventsDeps {
  db: Db;
  /** The delivery host's URL (the stream's playback URL in `data`). */
  deliveryUrl: string;
  /** Starts the delivery workflow (broadcast-workflows.ts). */
  deliver: (payload: LiveStreamWebhookPayload) => Promise<void>;
  logger: Logger;
}

/** Sends `event` of a broadcast's stream to the webhooks that want it; the stream is read as it is now. */
export async function sendLiveStreamEvent(
  { db, deliveryUrl, deliver, logger }: LiveStreamEventsDeps,
  event: IngestLiveStreamEvent,
  broadcast: Pick<HeldBroadcast, 'liveStreamId' | 'videoId'>,
): Promise<void> {
  const timestamp = new Date();
  const { liveStreamId, videoId } = broadcast;
  try {
    if ((await listWebhookSubscribers(db, { videoId, event })).length === 0) return;
    const stream = await getLiveStream(db, liveStreamId);
    if (!stream) return;
    await deliver(liveStreamEventPayload(event, { stream, videoId, deliveryUrl, timestamp }));
  } catch (error) {
    logger.error({ err: error, liveStreamId, videoId, event }, 'could not start a webhook delivery');
  }
}
