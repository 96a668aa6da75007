// Blocking reloads of a broadcast's playlists (issue 56; RFC 8216bis 6.2.5.2): a player asks for a
// media playlist once it holds a segment or part not made yet (`_HLS_msn`, `_HLS_part`), and the
// request is held until the stored playlist holds it. Delivery learns a playlist changed by reading
// it again every `intervalMs` (150 ms) while anyone waits on it, one read loop per playlist on a
// node however many viewers wait (as segment-waits.ts shares one wait per segment), not by a
// PostgreSQL NOTIFY: the orchestrator writes the playlist to storage and nothing else, delivery
// reads storage and nothing else for it, and a loop per watched playlist costs at most 7 small GETs
// a second. What it costs: a part is seen up to 150 ms after it is stored (docs/decisions/live.md).
import { findLivePart, type LivePartPlace } from '@kino/proto/contract';
import type { UncachedObject } from './object-cache.ts';

/** Playlists whose last read text is kept for placeOfPart; past this the memory starts again. */
const maxRememberedPlaylists = 1_000;

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
  /** Each watched playlist's last text read: a part, once listed, stays in the segment it was listed in. */
  private readonly lastRead = new Map<string, string>();

  private readonly read: (key: string) => Promise<UncachedObject | undefined>;
  private readonly intervalMs: number;
  constructor(read: (key: string) => Promise<UncachedObject | undefined>, intervalMs = 150) {
    this.read = read;
    this.intervalMs = intervalMs;
  }

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

  /**
   * Where the part `name` stands in the playlist at `key` (findLivePart): from the last text read of
   * it when that lists the part (players at the live edge keep a read loop going with their blocking
   * reloads), else once a read lists it, `deadlineMs` at most; undefined when none does by then, or
   * the playlist has ended.
   */
  async placeOfPart(
    key: string,
    name: string,
    deadlineMs: number,
    signal: AbortSignal,
  ): Promise<LivePartPlace | undefined> {
    const known = this.lastRead.get(key);
    const place = known === undefined ? undefined : findLivePart(known, name);
    if (place) return place;
    const waited = await this.wait(
      key,
      (text) => text.includes('#EXT-X-ENDLIST') || findLivePart(text, name) !== undefined,
      deadlineMs,
      signal,
    );
    return waited.satisfied && waited.object ? findLivePart(waited.object.data.toString('utf8'), name) : undefined;
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
          if (this.lastRead.size >= maxRememberedPlaylists && !this.lastRead.has(key)) this.lastRead.clear();
          this.lastRead.set(key, text);
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
