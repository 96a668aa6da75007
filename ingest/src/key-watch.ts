// A publisher is cut off when its stream is disabled, deleted or given a new key while it publishes
// (the API's reset and disable promise it). The API and ingest share nothing but PostgreSQL, so
// ingest reads the streams of the broadcasts it holds every interval: one query for all of them.
// The same tick renews their leases (one update): an ingest that dies stops renewing, and its
// streams read as idle once the lease ends. And it ends any broadcast whose lease has lapsed, this
// ingest's or a dead one's (endLapsed: one update), so that a dead ingest's broadcasts end as a
// clean end does (`live_stream.idle`), by whichever ingest sweeps first.
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
  endLapsed,
  intervalMs,
  logger,
}: {
  sessions: Pick<PublishSessions, 'heldBroadcasts' | 'cutOff'>;
  readStreams: (ids: string[]) => Promise<LiveStream[]>;
  /** Renews the leases of these broadcasts (renewBroadcasts). */
  renewLeases: (held: { streamId: string; videoId: string }[]) => Promise<void>;
  /** Ends the broadcasts whose leases have lapsed (endLapsedBroadcasts) and sends what their end sends. */
  endLapsed: () => Promise<void>;
  intervalMs: number;
  logger: Logger;
}): { stop(): void } {
  let running = false;
  const check = async () => {
    if (running) return;
    running = true;
    const held = sessions.heldBroadcasts();
    try {
      // Renewed first: a broadcast of this ingest's whose renewal came late is not swept as a dead one's.
      if (held.length > 0) await renewLeases(held.map((b) => ({ streamId: b.liveStreamId, videoId: b.videoId })));
      await endLapsed();
      if (held.length === 0) return;
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
