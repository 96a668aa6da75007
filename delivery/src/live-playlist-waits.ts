// Blocking reloads of a broadcast's playlists (issue 56; RFC 8216bis 6.2.5.2): a player asks for a
// media playlist once it holds a segment or part not made yet (`_HLS_msn`, `_HLS_part`), and the
// request is held until the stored playlist holds it. Delivery learns a playlist changed by reading
// it again every `intervalMs` (150 ms) while anyone waits on it, one read loop per playlist on a
// node however many viewers wait (as segment-waits.ts shares one wait per segment), not by a
// PostgreSQL NOTIFY: the orchestrator writes the playlist to storage and nothing else, delivery
// reads storage and nothing else for it, and a loop per watched playlist costs at most 7 small GETs
// a second. What it costs: a part is seen up to 150 ms after it is stored (docs/decisions/live.md).
import type { UncachedObject } from './object-cache.ts';

/** A wait's answer: the playlist that holds what it waited for, or the latest read when its deadline came first. */
export interface WaitedPlaylist {
  object: UncachedObject | undefined;
  satisfied: boolean;
}

interface Waiter {
  until: (text: string) => boolean;
  done: (answer: WaitedPlaylist) => void;
}

interface Watch {
  waiters: Set<Waiter>;
  latest: UncachedObject | undefined;
}

export class LivePlaylistWaits {
  private readonly watches = new Map<string, Watch>();

  constructor(
    private readonly read: (key: string) => Promise<UncachedObject | undefined>,
    private readonly intervalMs = 150,
  ) {}

  /**
   * The playlist at `key` once `until` holds for its text, or as it is after `deadlineMs`; undefined
   * object if the client left (`signal`) or storage has none.
   */
  wait(
    key: string,
    until: (text: string) => boolean,
    deadlineMs: number,
    signal: AbortSignal,
  ): Promise<WaitedPlaylist> {
    const watch = this.watches.get(key) ?? this.startWatch(key);
    return new Promise((resolve) => {
      const finish = (answer: WaitedPlaylist) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', leave);
        watch.waiters.delete(waiter);
        resolve(answer);
      };
      const waiter: Waiter = { until, done: finish };
      const timer = setTimeout(() => finish({ object: watch.latest, satisfied: false }), deadlineMs);
      const leave = () => finish({ object: undefined, satisfied: false });
      signal.addEventListener('abort', leave, { once: true });
      watch.waiters.add(waiter);
      if (signal.aborted) leave();
    });
  }

  private startWatch(key: string): Watch {
    const watch: Watch = { waiters: new Set(), latest: undefined };
    this.watches.set(key, watch);
    void this.poll(key, watch);
    return watch;
  }

  /** Reads the playlist until nobody waits on it, answering each waiter whose condition it meets. */
  private async poll(key: string, watch: Watch): Promise<void> {
    try {
      // The first read happens at once: a waiter added in this tick is in the set by then.
      await Promise.resolve();
      while (watch.waiters.size > 0) {
        const object = await this.read(key).catch(() => watch.latest);
        watch.latest = object;
        if (object) {
          const text = object.data.toString('utf8');
          for (const waiter of [...watch.waiters]) if (waiter.until(text)) waiter.done({ object, satisfied: true });
        }
        if (watch.waiters.size === 0) break;
        await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
      }
    } finally {
      this.watches.delete(key);
    }
  }
}
