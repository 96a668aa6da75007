// Chunked encoding (docs/architecture.md#chunked-encoding): where a video is cut into chunks, and
// the rendition playlists written from the chunks' segments (renderMediaPlaylist, in the contract).
// Pure and deterministic: the processVideo workflow plans with it.
import { hlsBootstrapSeconds } from '@kino/proto/contract';
import type { QualityOutcome } from './activity-types.ts';

/**
 * The default chunk length: 30 s, five 6 s segments. Each chunk pays a fixed cost (an ffmpeg start,
 * a probe, the decode from the source's keyframe before the chunk, x264's lookahead filling up),
 * measured in bench/encode at about a second: under 5 % of a 30 s chunk's encode at every rung.
 * Longer chunks spread a short video over fewer nodes and lose more to a node killed mid-chunk.
 */
export const defaultChunkSeconds = 30;

/** One chunk of a video: a window of the source whose bounds are multiples of the segment length. */
export interface ChunkPlan {
  index: number;
  startSeconds: number;
  /** The last chunk's runs to the end of the video (and may be shorter). */
  durationSeconds: number;
  /** The whole video's number of the chunk's first segment. */
  firstSegment: number;
  /**
   * Segments the chunk writes at most (its URLs are presigned for): its duration in segments, the
   * last one shorter; the last chunk writes one fewer when its tail joins the segment before it.
   */
  segmentCount: number;
  /**
   * A window that starts inside the first segment, written as 2 s pieces (ChunkEncode.bootstrap):
   * those of the first segment are its bootstrap segments, the later ones are joined by threes into
   * 6 s segments. The first 2 s, then the 4 s after (alone, or with the next run's segments).
   * `segmentCount` counts segment 0, which the two first runs make together.
   */
  bootstrap?: boolean;
  /**
   * The encode's input starts this far into the video (ChunkEncode.input_offset_seconds): a
   * frame-accurate clip of a broadcast's recording reads the one segment holding its window.
   */
  inputOffsetSeconds?: number;
  /** The input is that one segment (ChunkEncode.input_is_segment): sought from its first video frame. */
  inputIsSegment?: true;
}

/**
 * Cuts `durationSeconds` into chunks of `chunkSeconds` (rounded down to a multiple of the segment
 * length, at least one segment; 0: never cut). A remainder shorter than one segment joins the chunk
 * before it, so no chunk is a sliver. One chunk means the video is encoded whole, as before chunking.
 */
export function planChunks(durationSeconds: number, chunkSeconds: number, segmentSeconds: number): ChunkPlan[] {
  if (chunkSeconds <= 0) {
    const segmentCount = Math.max(1, Math.ceil(durationSeconds / segmentSeconds));
    return [{ index: 0, startSeconds: 0, durationSeconds: Math.ceil(durationSeconds), firstSegment: 0, segmentCount }];
  }
  const length = Math.max(segmentSeconds, Math.floor(chunkSeconds / segmentSeconds) * segmentSeconds);
  const starts: number[] = [];
  for (let start = 0; start === 0 || durationSeconds - start > segmentSeconds; start += length) starts.push(start);
  return starts.map((start, index) => {
    const last = index === starts.length - 1;
    // The last chunk asks for more than is left: ffmpeg stops at the end of the source.
    const durationOfChunk = last ? Math.max(length, Math.ceil(durationSeconds - start)) : length;
    return {
      index,
      startSeconds: start,
      durationSeconds: durationOfChunk,
      firstSegment: start / segmentSeconds,
      segmentCount: Math.ceil((last ? durationSeconds - start : length) / segmentSeconds),
    };
  });
}

/**
 * A just-in-time run's length after the first: 12 s, two segments. A viewer who asks for a segment
 * waits for the run that makes it (its segments come out in order), so runs are short; each pays
 * the chunk's fixed cost of about a second (docs/decisions/just-in-time.md has the figures).
 */
export const defaultJustInTimeRunSeconds = 12;

/**
 * How a just-in-time video's first segment is made: `whole`, one run; or as bootstrap segments (issue
 * 55), its first 2 s a run of their own (what `ready` then waits for) and its other 4 s either a run
 * of their own (`bootstrap-apart`: workflows started before patch `bootstrap-rest-with-next-run`) or
 * the start of the run after them (`bootstrap-with-next`), which saves a run's fixed cost per video.
 */
export type FirstSegmentRuns = 'whole' | 'bootstrap-apart' | 'bootstrap-with-next';

/**
 * The runs of a video published just in time: its first segment alone (what `ready` waits for),
 * then runs of `runSeconds` in playback order, cut as planChunks cuts (the tail joins the run before
 * it). One run for a video of one segment. With bootstrap segments (`firstSegment` not `whole`) only
 * where the first segment is a whole one: a video a second or more longer than one segment (a
 * shorter one is one segment, its tail folded in).
 */
export function planJustInTimeRuns(
  durationSeconds: number,
  runSeconds: number,
  segmentSeconds: number,
  firstSegment: FirstSegmentRuns = 'whole',
): ChunkPlan[] {
  const head = planChunks(durationSeconds, segmentSeconds, segmentSeconds);
  const withBootstrap = firstSegment !== 'whole' && durationSeconds - segmentSeconds >= 1;
  if (head.length === 1 && !withBootstrap) return head;
  const rest = planChunks(durationSeconds - segmentSeconds, runSeconds, segmentSeconds).map((run) => ({
    ...run,
    startSeconds: run.startSeconds + segmentSeconds,
    firstSegment: run.firstSegment + 1,
  }));
  const segmentZero = { index: 0, startSeconds: 0, firstSegment: 0, segmentCount: 1 };
  const bootstrapHead: ChunkPlan = { ...segmentZero, durationSeconds: hlsBootstrapSeconds, bootstrap: true };
  const restOfSegmentZero = { index: 1, startSeconds: hlsBootstrapSeconds, firstSegment: 0, bootstrap: true };
  const first: ChunkPlan[] =
    firstSegment === 'bootstrap-apart'
      ? [
          bootstrapHead,
          { ...restOfSegmentZero, durationSeconds: segmentSeconds - hlsBootstrapSeconds, segmentCount: 1 },
        ]
      : firstSegment === 'bootstrap-with-next'
        ? [
            bootstrapHead,
            // 2 s to the next run's end: segment 0's other bootstrap segments, then the next run's
            // segments, joined from 2 s pieces (ChunkEncode.bootstrap).
            {
              ...restOfSegmentZero,
              durationSeconds: segmentSeconds - hlsBootstrapSeconds + rest[0]!.durationSeconds,
              segmentCount: 1 + rest[0]!.segmentCount,
            },
          ]
        : [head[0]!];
  const after = firstSegment === 'bootstrap-with-next' ? rest.slice(1) : rest;
  return [...first, ...after.map((run, k) => ({ ...run, index: first.length + k }))];
}

/**
 * The chunks whose renditions a node scores against the source (VMAF, PSNR), when the video's are
 * measured: every chunk of a short video, else `samples` spread over it (the first, the middle and
 * the last for three). Scoring costs about as much as an encode of the chunk's lowest rendition,
 * so a long video is measured on a sample, not whole.
 */
export function qualitySampleChunks(chunkCount: number, samples = 3): Set<number> {
  if (chunkCount <= samples) return new Set(Array.from({ length: chunkCount }, (_, i) => i));
  return new Set(Array.from({ length: samples }, (_, k) => Math.round((k * (chunkCount - 1)) / (samples - 1))));
}

/** One rendition's quality over the chunks that were scored: their means weighted by frames scored. */
export function meanQuality(parts: readonly { quality?: QualityOutcome }[]): QualityOutcome | undefined {
  const scored = parts.flatMap((part) => (part.quality ? [part.quality] : []));
  const frames = scored.reduce((sum, q) => sum + q.frames, 0);
  if (frames === 0) return undefined;
  return {
    vmaf: scored.reduce((sum, q) => sum + q.vmaf * q.frames, 0) / frames,
    psnr: scored.reduce((sum, q) => sum + q.psnr * q.frames, 0) / frames,
    frames,
  };
}
