// The video events the API itself causes (docs/decisions/api.md#webhooks): `video.created`
// (process, ingest, a clip), `video.updated` (PATCH), `video.deleted` (DELETE) and
// `video.caption.ready` (a caption track added or replaced). `data` is the video's details as GET
// details answers them at that moment (for `video.deleted`, as they were just before). Delivery is a
// deliverWebhooks workflow, as for the orchestrator's processing events: durable, retried with
// backoff, each endpoint on its own.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { VideoWebhookEvent, WebhookVideoStatus } from '@kino/proto/contract';
import { announceVideoEvent } from '@kino/database';
import { listWebhookSubscribers } from '@kino/database/repositories';
import type { ApiDeps } from '../deps.ts';
import { loadVideoDetails, type VideoDetails } from '@kino/presenters';
import { startDeliverWebhooks } from './workflows.ts';

type ApiVideoEvent = Exclude<VideoWebhookEvent, 'video.processing.completed' | 'video.processing.failed'>;

/** The video's status in an event's payload: `deleted` for `video.deleted`. */
function statusOf(event: ApiVideoEvent, details: VideoDetails): WebhookVideoStatus {
  if (event === 'video.deleted') return 'deleted';
  return details.status.ready ? 'ready' : details.status.failed ? 'failed' : 'transcoding';
}

/**
 * Sends `event` of a video to its environment's subscribed webhooks. The request that caused it has
 * done its work: a failure here is logged, never answered (the change stands without its event).
 * `details`: the details the caller already holds (PATCH's answer, the video before its deletion).
 */
export async function sendVideoEvent(
  deps: ApiDeps,
  log: FastifyBaseLogger,
  { event, videoId, details }: { event: ApiVideoEvent; videoId: string; details?: VideoDetails },
): Promise<void> {
  const timestamp = new Date().toISOString();
  try {
    // Listeners inside Kino (the dashboard) hear of every event, subscribed or not.
    await announceVideoEvent(deps.db, { event, videoId, timestamp });
    if ((await listWebhookSubscribers(deps.db, { videoId, event })).length === 0) return;
    const data = details ?? (await loadVideoDetails(deps, videoId));
    if (!data) return;
    await startDeliverWebhooks(
      deps.temporal,
      { payload: { event, videoId, status: statusOf(event, data), timestamp, data } },
      randomUUID(),
    );
  } catch (error) {
    log.error({ err: error, videoId, event }, 'could not start a webhook delivery');
  }
}
