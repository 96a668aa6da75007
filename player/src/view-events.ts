// The event sequencer of one view (docs/decisions/player.md "Beacons"): it turns what the media
// element and hls.js say into the view's beacon events. It touches no DOM and no network: the
// element feeds it the media events' names and a clock, and a test feeds it recorded sequences.
import type { BeaconEvent } from '@kino/proto/contract';

/** The media element's events the sequencer reads. */
export type MediaEventName = 'play' | 'playing' | 'waiting' | 'seeking' | 'seeked' | 'pause' | 'ended';

export class ViewEvents {
  readonly #t0: number;
  #playRequested = false;
  #firstFrame = false;
  #stalled = false;
  #seeking = false;
  #seekFrom = 0;
  /** Where the media was before a seek began: the element's time is already the target at `seeking`. */
  #lastPositionMs = 0;
  #ended = false;
  /** When the current stretch of playing began (clock ms), or null while not playing. */
  #playingSince: number | null = null;
  /** Watched ms not yet carried by a heartbeat. */
  #unreported = 0;

  private readonly now: () => number;
  private readonly emit: (event: BeaconEvent) => void;
  private readonly position: () => number;
  /**
   * `now`: a monotonic clock in ms (performance.now); `emit` receives each event; `position`: the
   * media's current time in seconds (a seek's from and to).
   */
  constructor(now: () => number, emit: (event: BeaconEvent) => void, position: () => number) {
    this.now = now;
    this.emit = emit;
    this.position = position;
    this.#t0 = now();
    this.emit({ type: 'viewstart', at: 0 });
  }

  #at(): number {
    return Math.max(0, Math.round(this.now() - this.#t0));
  }

  /** Whether the view has ended (nothing more is reported). */
  get ended(): boolean {
    return this.#ended;
  }

  /** A media event of the element. */
  media(name: MediaEventName): void {
    if (this.#ended) return;
    const at = this.#at();
    switch (name) {
      case 'play':
        if (!this.#playRequested) {
          this.#playRequested = true;
          this.emit({ type: 'playrequest', at });
        }
        return;
      case 'playing':
        this.#startWatching();
        if (this.#playRequested && !this.#firstFrame) {
          this.#firstFrame = true;
          this.emit({ type: 'firstframe', at });
        } else if (this.#stalled) {
          this.#stalled = false;
          this.emit({ type: 'rebufferend', at });
        }
        return;
      case 'waiting':
        this.#stopWatching();
        // Waiting while seeking is the seek's, not a stall; before the first frame it is startup.
        if (this.#firstFrame && !this.#seeking && !this.#stalled) {
          this.#stalled = true;
          this.emit({ type: 'rebufferstart', at });
        }
        return;
      case 'seeking':
        this.#stopWatching();
        if (!this.#seeking) this.#seekFrom = this.#lastPositionMs;
        this.#seeking = true;
        return;
      case 'seeked':
        if (this.#seeking) this.emit({ type: 'seek', at, from: this.#seekFrom, to: this.#positionMs() });
        this.#seeking = false;
        // A stall that a seek interrupted ends with it: the seek's own wait is not a rebuffer.
        if (this.#stalled) {
          this.#stalled = false;
          this.emit({ type: 'rebufferend', at });
        }
        return;
      case 'pause':
        this.#stopWatching();
        return;
      case 'ended':
        this.end();
        return;
    }
  }

  /** Called on `timeupdate`: remembers the position a seek starts from. */
  timeUpdate(): void {
    if (!this.#seeking) this.#lastPositionMs = this.#positionMs();
  }

  #positionMs(): number {
    const seconds = this.position();
    return Number.isFinite(seconds) ? Math.max(0, Math.round(seconds * 1000)) : 0;
  }

  /** hls.js switched rungs. */
  rendition(height: number, bitrate: number, codec: string): void {
    if (this.#ended) return;
    this.emit({ type: 'rendition', at: this.#at(), height, bitrate, codec });
  }

  /** A fatal error: the view has failed and ends. */
  fatalError(code: string): void {
    if (this.#ended) return;
    this.emit({ type: 'error', at: this.#at(), code, fatal: true });
    this.end();
  }

  /** Every BEACON_INTERVAL_MS, and before the view ends or the page hides: the time watched since the last one. */
  heartbeat(): void {
    if (this.#ended) return;
    if (this.#playingSince !== null) {
      const now = this.now();
      this.#unreported += now - this.#playingSince;
      this.#playingSince = now;
    }
    const watchedMs = Math.round(this.#unreported);
    if (watchedMs <= 0) return;
    this.#unreported = 0;
    this.emit({ type: 'heartbeat', at: this.#at(), watchedMs });
  }

  /** The view ends: its last watch time, then `viewend`. */
  end(): void {
    if (this.#ended) return;
    this.heartbeat();
    this.#stopWatching();
    this.emit({ type: 'viewend', at: this.#at() });
    this.#ended = true;
  }

  #startWatching(): void {
    this.#playingSince ??= this.now();
  }

  #stopWatching(): void {
    if (this.#playingSince === null) return;
    this.#unreported += this.now() - this.#playingSince;
    this.#playingSince = null;
  }
}
