// Clips (docs/decisions/delivery.md#clips): which of a video's segments a segment-accurate clip plays. A clip
// references whole segments, so it starts at the start of the segment that holds `startTime` and
// ends at the end of the one that holds the instant before `endTime`: its duration is the span of
// those segments, never less than the range asked for.

/** The EXTINF durations of a media playlist's segments, in order. */
export function mediaPlaylistDurations(text: string): number[] {
  const durations: number[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith('#EXTINF:')) continue;
    const seconds = Number.parseFloat(line.slice('#EXTINF:'.length));
    if (!Number.isFinite(seconds) || seconds <= 0)
      throw new Error(`a media playlist has a bad segment duration: ${line}`);
    durations.push(seconds);
  }
  return durations;
}

export interface ClipSegments {
  /** The index of the clip's first segment among the video's. */
  firstSegment: number;
  /** The durations of the clip's segments, in order. */
  durations: number[];
  /** Where the first segment starts in the video, in seconds. */
  spanStartSeconds: number;
  /** The sum of `durations`: the clip's duration. */
  spanSeconds: number;
}

/**
 * The segments whose span overlaps [startSeconds, endSeconds), given the video's segment durations.
 * Throws when none does (a range past the last segment).
 */
export function selectClipSegments(
  durations: readonly number[],
  startSeconds: number,
  endSeconds: number,
): ClipSegments {
  let at = 0;
  let firstSegment = -1;
  let spanStartSeconds = 0;
  const selected: number[] = [];
  durations.forEach((duration, index) => {
    const segmentEnd = at + duration;
    if (at < endSeconds && segmentEnd > startSeconds) {
      if (firstSegment === -1) {
        firstSegment = index;
        spanStartSeconds = at;
      }
      selected.push(duration);
    }
    at = segmentEnd;
  });
  if (firstSegment === -1) throw new Error(`no segment overlaps ${startSeconds}..${endSeconds} s of a ${at} s video`);
  return { firstSegment, durations: selected, spanStartSeconds, spanSeconds: selected.reduce((sum, d) => sum + d, 0) };
}

/**
 * Where a frame-accurate clip's segments begin and end in the source's seconds: the selected
 * segments' boundaries, the first moved to startTime and the last to endTime.
 */
export function clipCuts(selection: ClipSegments, startTime: number, endTime: number): number[] {
  const cuts = [startTime];
  let at = selection.spanStartSeconds;
  for (const duration of selection.durations.slice(0, -1)) {
    at += duration;
    cuts.push(at);
  }
  cuts.push(endTime);
  return cuts;
}
