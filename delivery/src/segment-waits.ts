// Segments made on request (just in time; docs/decisions/delivery.md#segments-made-on-request). A
// video published just in time is ready with its first segments while the farm makes the rest in
// the background, in playback order. A viewer who asks for a segment that is not stored yet (a
// seek ahead, or a player outrunning the farm) should not get a 404: delivery raises the encode
// queue's entry that makes the segment (the farm runs it on its next free slot or a node's demand
// slot) and the request waits until the object is in storage, then is served like any segment.
//
// Requests for one segment on one node share one wait (single flight, as the object cache joins
// reads of one object): one raise and one poll loop however many viewers wait, and once the
// object is there each request reads it through the cache, which makes that one storage read.
//
// The wait looks at storage every 200 ms (a HEAD), raises the entry again every second (the run
// may be queued after the request came: a video's runs wait for its audio track, and a run whose
// node was lost is queued again, at priority 0) and reads the video's row every second: once the
// video is no longer ready with segments pending (it failed, was deleted, or its ladder completed
// without this segment) the wait ends. Each request waits at most its deadline
// (DELIVERY_SEGMENT_WAIT_SECONDS) or until its client leaves; the loop stops when the last request
// waiting on it has gone.

/** A segment (or init segment) storage does not have, of a video whose segments are being made. */
export interface MissingSegment {
  videoId: string;
  /** The rendition's key (`720p`): the encode queue names renditions by it. */
  rendition: string;
  /** The media segment's index; an init segment is made by the run of segment 0. */
  segment: number;
  /** Its storage key (the single-flight key). */
  key: string;
}

/** Where the video stands, read from its row: still being made, complete, or not playable (failed, deleted). */
export type VideoProgress = 'pending' | 'complete' | 'unplayable';

/**
 * How a request's wait ended: the object is `stored` (read it through the cache); the ladder is
 * `complete` without it; the video is `unplayable` (failed or deleted); or the request's deadline
 * came first (`timeout`).
 */
export type WaitOutcome = 'stored' | 'complete' | 'unplayable' | 'timeout';

/** How a shared wait ended (the metrics' `outcome`): `abandoned` when every request waiting on it gave up first. */
export type SharedWaitEnd = 'made' | 'complete' | 'unplayable' | 'abandoned' | 'error';

export interface SegmentWaitSources {
  /** Whether storage has the object now (a HEAD). */
  stored(key: string): Promise<boolean>;
  /**
   * Raises the run that makes the segment, queued or already running, and the next segment's
   * (raiseSegmentPriority); whether a queued or running run covers it.
   */
  raise(segment: MissingSegment): Promise<boolean>;
  /** The video's row now, not the catalog's copy of it. */
  progress(videoId: string): Promise<VideoProgress>;
}

export interface SegmentWaitMetrics {
  /** One per shared wait (a segment waited for on this node), by how it ended. */
  segmentWaited(end: SharedWaitEnd): void;
  /** One per request that waited, whatever ended it: the seconds it waited. */
  requestWaited(seconds: number): void;
}

/** The loop's pace: storage is cheap to ask, the row and the queue (PostgreSQL) a little less. */
export const segmentWaitTiming = { pollMs: 200, raiseEveryMs: 1_000, progressEveryMs: 1_000 } as const;

interface SharedWait {
  /** Settles when the loop ends; `abandoned` only once no request waits on it any more. */
  ended: Promise<Exclude<WaitOutcome, 'timeout'> | 'abandoned'>;
  requests: number;
  stop: AbortController;
}

export class SegmentWaits {
  private readonly waits = new Map<string, SharedWait>();

  private readonly sources: SegmentWaitSources;
  private readonly options: { deadlineMs: number; metrics: SegmentWaitMetrics };
  constructor(sources: SegmentWaitSources, options: { deadlineMs: number; metrics: SegmentWaitMetrics }) {
    this.sources = sources;
    this.options = options;
  }

  /**
   * Waits for a missing segment, joining the wait already under way for it on this node. Rejects
   * with the signal's reason when the client leaves, and with the error of a source that failed
   * (storage or the database unavailable).
   */
  async wait(segment: MissingSegment, signal?: AbortSignal): Promise<WaitOutcome> {
    signal?.throwIfAborted();
    const started = performance.now();
    let shared = this.waits.get(segment.key);
    if (!shared) {
      shared = this.start(segment);
      this.waits.set(segment.key, shared);
    }
    shared.requests += 1;
    try {
      const outcome = await untilDeadline(shared.ended, this.options.deadlineMs, signal);
      // `abandoned` is only ever seen once nobody waits: not by a request still waiting.
      return outcome === 'abandoned' ? 'timeout' : outcome;
    } finally {
      this.options.metrics.requestWaited((performance.now() - started) / 1000);
      shared.requests -= 1;
      if (shared.requests === 0) this.finish(segment.key, shared);
    }
  }

  /**
   * Waits until a video's ladder is complete (a download needs every segment): its row read every
   * second, up to the deadline. Nothing is raised: the background makes the rest in playback order,
   * and a download must not go ahead of viewers waiting for one segment.
   */
  async untilComplete(videoId: string, signal?: AbortSignal): Promise<Exclude<VideoProgress, 'pending'> | 'timeout'> {
    const deadline = Date.now() + this.options.deadlineMs;
    for (;;) {
      signal?.throwIfAborted();
      const progress = await this.sources.progress(videoId);
      if (progress !== 'pending') return progress;
      if (Date.now() + segmentWaitTiming.progressEveryMs > deadline) return 'timeout';
      // Cut short when the client leaves: the loop's first line then rejects.
      await pause(segmentWaitTiming.progressEveryMs, signal);
    }
  }

  private start(segment: MissingSegment): SharedWait {
    const stop = new AbortController();
    const ended = this.run(segment, stop.signal).then(
      (end) => {
        this.options.metrics.segmentWaited(end === 'stored' ? 'made' : end);
        return end;
      },
      (error: unknown) => {
        this.options.metrics.segmentWaited('error');
        throw error;
      },
    );
    const shared: SharedWait = { ended, requests: 0, stop };
    // The entry ends with its loop: a request arriving afterwards starts a new one.
    const settled = () => this.finish(segment.key, shared);
    ended.then(settled, settled);
    return shared;
  }

  /** Forgets the entry (a request arriving later starts a new wait) and stops its loop. */
  private finish(key: string, shared: SharedWait): void {
    if (this.waits.get(key) === shared) this.waits.delete(key);
    shared.stop.abort();
  }

  private async run(
    segment: MissingSegment,
    stop: AbortSignal,
  ): Promise<Exclude<WaitOutcome, 'timeout'> | 'abandoned'> {
    const { pollMs, raiseEveryMs, progressEveryMs } = segmentWaitTiming;
    let raiseAt = 0;
    let progressAt = Date.now() + progressEveryMs;
    for (;;) {
      if (Date.now() >= raiseAt) {
        await this.sources.raise(segment);
        raiseAt = Date.now() + raiseEveryMs;
      }
      if (await this.sources.stored(segment.key)) return 'stored';
      if (Date.now() >= progressAt) {
        const progress = await this.sources.progress(segment.videoId);
        if (progress === 'unplayable') return 'unplayable';
        // The last run may have stored it just before the ladder was marked complete.
        if (progress === 'complete') return (await this.sources.stored(segment.key)) ? 'stored' : 'complete';
        progressAt = Date.now() + progressEveryMs;
      }
      if (!(await pause(pollMs, stop))) return 'abandoned';
    }
  }
}

/** Resolves after `ms`: true, or false as soon as `stop` is aborted. */
function pause(ms: number, stop: AbortSignal | undefined): Promise<boolean> {
  if (stop?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onStop = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      stop?.removeEventListener('abort', onStop);
      resolve(true);
    }, ms);
    stop?.addEventListener('abort', onStop, { once: true });
  });
}

/** `ended`'s outcome, `timeout` after `deadlineMs`, or a rejection with the signal's reason. */
function untilDeadline<T>(
  ended: Promise<T>,
  deadlineMs: number,
  signal: AbortSignal | undefined,
): Promise<T | 'timeout'> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve('timeout');
    }, deadlineMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    ended.then(
      (outcome) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      },
      (error: unknown) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
