// Progress of one upload: bytes that reached storage (parts already there on a resume included)
// and the rate over the last few seconds, reported at most every `intervalMs` and once at the end.

/** What `onProgress` receives. */
export interface UploadProgress {
  /** Bytes storage has taken so far, parts found there on a resume included. */
  bytesSent: number;
  totalBytes: number;
  /** Over the last few seconds of this run (0 until a byte moved). */
  bytesPerSecond: number;
}

/** The span the rate is measured over: long enough to smooth bursts, short enough to follow the link. */
const rateWindowMs = 5000;

export class ProgressMeter {
  /** Bytes of parts that are complete (found on storage or acknowledged by it). */
  private settled = 0;
  /** Bytes handed to the connection by the attempts under way, per part. */
  private readonly inFlight = new Map<number, number>();
  private readonly samples: Array<{ at: number; bytes: number }> = [];
  private lastReport = -Infinity;

  readonly totalBytes: number;
  private readonly onProgress: ((progress: UploadProgress) => void) | undefined;
  private readonly intervalMs: number;
  private readonly now: () => number;
  constructor(
    totalBytes: number,
    onProgress: ((progress: UploadProgress) => void) | undefined,
    intervalMs = 100,
    now: () => number = () => performance.now(),
  ) {
    this.totalBytes = totalBytes;
    this.onProgress = onProgress;
    this.intervalMs = intervalMs;
    this.now = now;
  }

  /** Parts that were on storage before this run: counted as sent, not in the rate. */
  alreadySent(bytes: number): void {
    this.settled += bytes;
  }

  /** An attempt at `part` has handed `bytes` to the connection so far (a retry starts again at 0). */
  sending(part: number, bytes: number): void {
    const before = this.inFlight.get(part) ?? 0;
    this.inFlight.set(part, bytes);
    if (bytes > before) this.sample(bytes - before);
    this.report(false);
  }

  /** Storage took `part` whole. */
  done(part: number, bytes: number): void {
    const before = this.inFlight.get(part) ?? 0;
    this.inFlight.delete(part);
    if (bytes > before) this.sample(bytes - before);
    this.settled += bytes;
    this.report(false);
  }

  /** The final report, whatever the interval. */
  finish(): void {
    this.report(true);
  }

  get bytesSent(): number {
    let sum = this.settled;
    for (const bytes of this.inFlight.values()) sum += bytes;
    return Math.min(sum, this.totalBytes);
  }

  get bytesPerSecond(): number {
    const now = this.now();
    while (this.samples.length > 0 && this.samples[0]!.at < now - rateWindowMs) this.samples.shift();
    if (this.samples.length === 0) return 0;
    const bytes = this.samples.reduce((sum, sample) => sum + sample.bytes, 0);
    const span = Math.max(now - this.samples[0]!.at, 250);
    return Math.round((bytes * 1000) / span);
  }

  private sample(bytes: number): void {
    this.samples.push({ at: this.now(), bytes });
  }

  private report(force: boolean): void {
    if (!this.onProgress) return;
    const now = this.now();
    if (!force && now - this.lastReport < this.intervalMs) return;
    this.lastReport = now;
    this.onProgress({ bytesSent: this.bytesSent, totalBytes: this.totalBytes, bytesPerSecond: this.bytesPerSecond });
  }
}
