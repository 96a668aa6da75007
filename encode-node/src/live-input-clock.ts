// Where a broadcast's files sit in wall-clock time, and where the input had a gap (issue 56,
// docs/decisions/live.md "Reconnect"). A publisher that drops and comes back within its window
// continues the same broadcast: node-media-server keeps the node's reader open through the gap and
// shifts the resumed publisher's timestamps past the last ones, so ffmpeg reads one continuous
// stream, and its EXT-X-PROGRAM-DATE-TIME (its start's wall clock plus the media time since) falls
// behind by the gap. The gap shows in when files close: ffmpeg closes a file when the next one's
// first keyframe comes, so the last file before the gap closes only once the publisher is back, its
// lag (the time from the end of its media to its closing) grown by the gap. At ffmpeg's start the
// lag falls (it reads the broadcast's backlog faster than real time), then holds at the encoder's
// delay; a file whose lag is past the least seen by more than `gapMs` is the last before a gap: the
// next file is marked (EXT-X-DISCONTINUITY), and its time and every later one's are moved on by the
// growth. An encoder fallen that far behind (a node starved of CPU) lags as much, but its input did
// not stop: ffmpeg kept reporting progress, where in a gap its one input's read blocks its main loop
// and no progress line comes (checked: 4.3 s of silence for a sender stopped 4 s). So a lag's growth
// is a gap only when ffmpeg was silent that long before the file (`inputSilentMs`); else the times
// stay media time's. The last file of all closes late too (the input ends only when the reconnect
// window has passed): nothing follows it.
//
// Where the times start: ffmpeg dates its first file by its own start (whole seconds), seconds after
// the publisher's (the live probe, a slot, ffmpeg's start), though it reads the broadcast from its
// first frame. So with the broadcast's start as ingest saw it (`startedAtMs`, the publish), a file's
// time is that plus the media time before it: ffmpeg's time less its first file's (docs/decisions/
// live.md, "The program date-time").

/** More lag than this past the least is a gap in the input, not an encoder's jitter. */
export const inputGapMs = 3000;

export class LiveInputClock {
  private leastLagMs: number | undefined;
  private shiftMs = 0;
  /** The growth of lag the last file showed: a gap before the next one. */
  private pendingGapMs = 0;
  /** ffmpeg's time of the first file: its media time 0. */
  private firstMs: number | undefined;

  private readonly startedAtMs: number | undefined;
  private readonly gapMs: number;
  /**
   * `startedAtMs`: the wall-clock time of the input's media time 0 (the broadcast's start, when the
   * encoder reads it from its first frame); without it, ffmpeg's own times are kept.
   */
  constructor(startedAtMs: number | undefined, gapMs = inputGapMs) {
    this.startedAtMs = startedAtMs;
    this.gapMs = gapMs;
  }

  /**
   * A closed file's wall-clock time from ffmpeg's (`programDateTimeMs`), and whether a gap came
   * before it. `inputSilentMs`: the longest ffmpeg went without a progress line since the file before
   * (unknown: any lag's growth past `gapMs` is a gap).
   */
  place(
    programDateTimeMs: number,
    durationSeconds: number,
    nowMs: number,
    inputSilentMs = Number.POSITIVE_INFINITY,
  ): { programDateTimeMs: number; afterGap: boolean } {
    const afterGap = this.pendingGapMs > 0;
    this.shiftMs += this.pendingGapMs;
    this.pendingGapMs = 0;
    this.firstMs ??= programDateTimeMs;
    const reckoned =
      this.startedAtMs === undefined ? programDateTimeMs : this.startedAtMs + programDateTimeMs - this.firstMs;
    const placed = reckoned + this.shiftMs;
    const lag = nowMs - (placed + durationSeconds * 1000);
    if (this.leastLagMs !== undefined && lag > this.leastLagMs + this.gapMs) {
      // Behind without a silence: a slow encoder, not a gap in the input.
      if (inputSilentMs >= this.gapMs) this.pendingGapMs = lag - this.leastLagMs;
    } else this.leastLagMs = Math.min(this.leastLagMs ?? lag, lag);
    return { programDateTimeMs: placed, afterGap };
  }
}
