// Chunk: the renditions of one window of a longer video (docs/architecture.md#chunked-encoding), as
// a whole encode makes them, with the source seeked to the window's start and its segments numbered
// and timed for the whole video. Its audio is stream-copied from the video's audio track
// (audio_url), or from an audio head it encodes first (audio_head), or from the window's own audio,
// encoded first from a little before the window (a frame-accurate clip's first or last segment). It
// uploads no playlist (the orchestrator writes the video's), and the init segment only as the first
// chunk (every chunk writes the same one).
import { join } from 'node:path';
import type { EncodeDone, EncodeRequest__Output, ProbeResult__Output } from '@kino/proto';
import { hlsBootstrapSeconds, hlsInitName, hlsPlaylistName, hlsSegmentSeconds } from '@kino/proto/contract';
import { audioTrackArgs, runFfmpeg, videoLeadSeconds, type ChunkWindow, type HlsEncodeSettings } from '@kino/ffmpeg';
import type { EncodeJobOptions } from '../encode-options.ts';
import { segmentOfLaterPiece } from '../bootstrap-pieces.ts';
import { InvalidRequestError } from '../errors.ts';
import { encodeHlsJob } from '../hls-job.ts';
import { describePlan, planHlsEncode } from '../hls-plan.ts';
import { withJobDir } from '../job-dir.ts';
import { watermarkedPlan } from '../watermark.ts';

type ChunkEncode = NonNullable<EncodeRequest__Output['chunk']>;

/**
 * How far past its chunk's window an audio head runs (the AAC encoder's flushed packets land beyond
 * it), and how far before its window a window's own audio starts (the encoder's priming lands before
 * the window, and the chunk's seek drops it with what else comes before the window's start).
 */
const audioMarginSeconds = 1;

export async function runChunkJob(
  options: EncodeJobOptions,
  source: ProbeResult__Output,
  chunk: ChunkEncode,
): Promise<EncodeDone> {
  const { request, logger } = options;
  let window = await segmentSought(windowOf(chunk), chunk, request.inputUrl, options.signal);
  const plan = planHlsEncode(
    chunk.renditions,
    chunk.outputUrls,
    chunk.index === 0 ? [hlsInitName] : [],
    source,
    options.qualityFfmpeg,
    options.encoders,
  );
  logger.info({ ...describePlan(plan, source), chunk: { index: chunk.index, ...window } }, 'encode starting');
  return withJobDir(options.workDir, request.jobId, 'job', async (jobDir) => {
    const audio = plan.renditions.find((r) => r.settings.audio)?.settings.audio;
    // Copied, never encoded with the picture: an encoder's priming (1024 samples) would start the
    // window's sound 21 ms before its first frame, and a player or a remux would show that frame twice.
    if (audio && !window.audioInput) {
      const fromSeconds = chunk.audioHead ? 0 : Math.max(0, window.startSeconds - audioMarginSeconds);
      window = { ...window, audioInput: await encodeWindowAudio(options, audio, window, fromSeconds, source, jobDir) };
    }
    return encodeHlsJob(options, source, {
      jobDir,
      plan: await watermarkedPlan(plan, request.watermark, jobDir, options.signal),
      outputUrls: chunk.outputUrls,
      measureQuality: chunk.measureQuality,
      window,
      // A window's later pieces go up joined into segments (bootstrap-pieces.ts), not as they are.
      keep: (name) =>
        name !== hlsPlaylistName &&
        (name !== hlsInitName || chunk.index === 0) &&
        segmentOfLaterPiece(name) === undefined,
    });
  });
}

/**
 * The chunk's window of the video. Without the audio track (a frame-accurate clip's first or last
 * segment, or a chunk that makes its audio head) the chunk encodes its audio first (encodeWindowAudio).
 */
function windowOf(chunk: ChunkEncode): ChunkWindow {
  // A window of an input that starts into the video (input_offset_seconds) is sought in the input.
  const offset = chunk.inputOffsetSeconds;
  const startSeconds = chunk.startSeconds - offset;
  if (!(startSeconds >= 0 && chunk.durationSeconds > 0 && chunk.firstSegment >= 0 && chunk.index >= 0 && offset >= 0)) {
    throw new InvalidRequestError(
      `chunk ${chunk.index} at ${chunk.startSeconds} s for ${chunk.durationSeconds} s is not a window of the video`,
    );
  }
  if (
    chunk.bootstrap &&
    (chunk.firstSegment !== 0 ||
      chunk.startSeconds >= hlsSegmentSeconds ||
      chunk.startSeconds % hlsBootstrapSeconds !== 0)
  )
    throw new InvalidRequestError('a bootstrap window starts inside the first segment, on a bootstrap segment');
  if (chunk.audioHead && chunk.audioUrl)
    throw new InvalidRequestError('a chunk copies its audio from audio_url or makes its audio_head, not both');
  if (chunk.bootstrap && offset > 0) throw new InvalidRequestError('a bootstrap window reads the whole video');
  return {
    startSeconds,
    durationSeconds: chunk.durationSeconds,
    firstSegment: chunk.firstSegment,
    ...(offset > 0 || chunk.inputIsSegment ? { inputOffsetSeconds: offset } : {}),
    ...(chunk.bootstrap ? { bootstrap: true } : {}),
    ...(chunk.audioUrl ? { audioInput: chunk.audioUrl } : {}),
  };
}

/**
 * A window of an input that is one segment of the video (input_is_segment) sought from the
 * segment's first video frame: `-ss` counts from the input's earliest timestamp, and a recording's
 * segment may hold sound from a little before its picture (ffmpeg would land that much early and
 * repeat the first frame to fill the gap). The output stays timed on the video's timeline.
 */
async function segmentSought(
  window: ChunkWindow,
  chunk: ChunkEncode,
  input: string,
  signal: AbortSignal,
): Promise<ChunkWindow> {
  if (!chunk.inputIsSegment) return window;
  const lead = await videoLeadSeconds(input, { signal });
  return { ...window, startSeconds: window.startSeconds + lead, inputOffsetSeconds: chunk.inputOffsetSeconds - lead };
}

/**
 * The window's audio, from `fromSeconds` to a second past the window's end (the packets the encoder
 * flushes at its end fall outside it), on the video's timeline, padded with silence as the track is.
 * From 0 it is the audio head: encoded as jobs/audio-track.ts encodes the track, the same packets,
 * so it joins the chunks that copy the track. Returns the file the chunk copies its audio from. It
 * runs before the encode's uploads start: the caller's signal alone stops it.
 */
async function encodeWindowAudio(
  { request, priority, signal, logger }: EncodeJobOptions,
  audio: NonNullable<HlsEncodeSettings['audio']>,
  window: ChunkWindow,
  fromSeconds: number,
  { durationSeconds }: ProbeResult__Output,
  jobDir: string,
): Promise<string> {
  const output = join(jobDir, 'window-audio.mp4');
  const endSeconds = window.startSeconds + window.durationSeconds + audioMarginSeconds;
  const args = audioTrackArgs({
    input: request.inputUrl,
    audio,
    output,
    startSeconds: fromSeconds,
    endSeconds,
    durationSeconds,
  });
  await runFfmpeg(args, { signal, logger, priority });
  return output;
}
