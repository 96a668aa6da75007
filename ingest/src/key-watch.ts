// A publisher is cut off when its stream is disabled, deleted or given a new key while it publishes
// (the API's reset and disable promise it). The API and ingest share nothing but PostgreSQL, so
// ingest reads the streams of the broadcasts it holds every interval: one query for all of them.
// The same tick renews their leases (one update): an ingest that dies stops renewing, and its
// streams read as idle once the lease ends.
import { hashSecret, type LiveStream } from '@kino/database';
import type { Logger } from '@kino/infra';
import type { HeldBroadcast, PublishSessions } from './publish-sessions.ts';

/** Why a held broadcast's publisher must go, or undefined while its key still opens its stream. */
export function whyCutOff(broadcast: HeldBroadcast, stream: LiveStream | undefined): string | undefined {
  if (!stream) return 'stream deleted';
  if (stream.disabled_at) return 'stream disabled';
  if (stream.stream_key_hash !== hashSecret(broadcast.key)) return 'stream key reset';
  return undefined;
}

export function watchStreamKeys({
  sessions,
  readStreams,
  renewLeases,
  intervalMs,
  logger,
}: {
  sessions: Pick<PublishSessions, 'heldBroadcasts' | 'cutOff'>;
  readStreams: (ids: string[]) => Promise<LiveStream[]>;
  /** Renews the leases of these broadcasts (renewBroadcasts). */
  renewLeases: (held: { streamId: string; videoId: string }[]) => Promise<void>;
  intervalMs: number;
  logger: Logger;
}): { stop(): void } {
  let running = false;
  const check = async () => {
    const held = sessions.heldBroadcasts();
    if (running || held.length === 0) return;
    running = true;
    try {
      await renewLeases(held.map((b) => ({ streamId: b.liveStreamId, videoId: b.videoId })));
      const streams = new Map((await readStreams(held.map((b) => b.liveStreamId))).map((s) => [s.id, s]));
      for (const broadcast of held) {
        const why = whyCutOff(broadcast, streams.get(broadcast.liveStreamId));
        if (why) sessions.cutOff(broadcast, why);
      }
    } catch (error) {
      // The next interval tries again; a publisher keeps publishing while the database is away.
      logger.warn({ err: error }, 'reading the held broadcasts’ streams failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
