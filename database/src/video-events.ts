// Video events as they happen, for listeners inside Kino (the dashboard's live updates,
// docs/decisions/dashboard.md#live-updates). They are the webhook events (`@kino/proto/contract`
// webhookEvents), announced where each one starts on its way to the webhooks: the API's own events
// before it looks for subscribers, the orchestrator's when its delivery workflow does. A
// PostgreSQL NOTIFY reaches every API instance; nothing is stored, so a listener that was not
// connected misses what happened meanwhile and reads the present again instead.
import { sql } from 'kysely';
import pg from 'pg';
import type { EventWebhookPayload } from '@kino/proto/contract';
import type { Db } from './database.ts';

/** The PostgreSQL channel of the announcements. */
export const VIDEO_EVENTS_CHANNEL = 'kino_video_events';

/**
 * One announcement: the webhook payload without its `data` (a listener reads the details itself,
 * with its own rights), and the video's organization and environment, to route it.
 */
export interface VideoEventAnnouncement extends Pick<EventWebhookPayload, 'event' | 'videoId' | 'timestamp'> {
  orgId: string;
  envId: string;
}

/**
 * Announces an event of a video (a deleted one too: its row stays). Nothing is sent for a video id
 * that has no row.
 */
export async function announceVideoEvent(
  db: Db,
  { event, videoId, timestamp }: Pick<VideoEventAnnouncement, 'event' | 'videoId' | 'timestamp'>,
): Promise<void> {
  await sql`
    select pg_notify(${VIDEO_EVENTS_CHANNEL}, json_build_object(
      'event', ${event}::text, 'videoId', v.id, 'timestamp', ${timestamp}::text,
      'orgId', v.org_id, 'envId', v.env_id)::text)
    from videos v where v.id = ${videoId}`.execute(db);
}

export interface VideoEventListener {
  close(): Promise<void>;
}

/**
 * Listens on its own connection (LISTEN holds one: a pooled connection would be handed to others).
 * `onEnd` is called once if the connection is lost; the caller decides whether to listen again.
 */
export async function listenForVideoEvents(
  databaseUrl: string,
  onEvent: (announcement: VideoEventAnnouncement) => void,
  onEnd: (error?: Error) => void,
): Promise<VideoEventListener> {
  const client = new pg.Client({ connectionString: databaseUrl });
  let closing = false;
  let ended = false;
  const end = (error?: Error) => {
    if (ended) return;
    ended = true;
    if (!closing) onEnd(error);
  };
  client.on('error', (error) => end(error));
  client.on('end', () => end());
  client.on('notification', (message) => {
    if (message.channel !== VIDEO_EVENTS_CHANNEL || !message.payload) return;
    onEvent(JSON.parse(message.payload) as VideoEventAnnouncement);
  });
  await client.connect();
  try {
    await client.query(`LISTEN ${VIDEO_EVENTS_CHANNEL}`);
  } catch (error) {
    closing = true;
    await client.end().catch(() => undefined);
    throw error;
  }
  return {
    async close() {
      closing = true;
      await client.end().catch(() => undefined);
    },
  };
}
