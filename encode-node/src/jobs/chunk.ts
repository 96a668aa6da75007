// Chunk: the renditions of one window of a longer video (docs/architecture.md#chunked-encoding), as
// a whole encode makes them, with the source seeked to the window's start and its segments numbered
// and timed for the whole video. Its audio is stream-copied from the video's audio track
// (audio_url), or from an audio head it encodes first (audio_head), or encoded for the window. It
// uploads no playlist (the orchestrator writes the video's), and the init segment only as the first
// chunk (every chunk writes the same one).
import { join } from 'node:path';
import type { EncodeDone, EncodeRequest__Output, ProbeResult__Output } from '@kino/proto';
import { hlsInitName, hlsPlaylistName } from '@kino/proto/contract';
import { audioTrackArgs, runFfmpeg, type ChunkWindow, type HlsEncodeSettings } from '@kino/ffmpeg';
import type { EncodeJobOptions } from '../encode-options.ts';
import { InvalidRequestError } from '../errors.ts';
import { encodeHlsJob } from '../hls-job.ts';
import { describePlan, planHlsEncode } from '../hls-plan.ts';
import { withJobDir } from '../job-dir.ts';

type ChunkEncode = NonNullable<EncodeRequest__Output['chunk']>;

/** How far past its chunk's window an audio head runs: the AAC encoder's flushed packets land beyond it. */
const audioHeadMarginSeconds = 1;

export async function runChunkJob(
  options: EncodeJobOptions,
  source: ProbeResult__Output,
  chunk: ChunkEncode,
): Promise<EncodeDone> {
  const { request, logger } = options;
  let window = windowOf(chunk);
  const plan = planHlsEncode(
    chunk.renditions,
    chunk.outputUrls,
    chunk.index === 0 ? [hlsInitName] : [],
    source,
    options.qualityFfmpeg,
  );
  logger.info({ ...describePlan(plan, source), chunk: { index: chunk.index, ...window } }, 'encode starting');
  return withJobDir(options.workDir, request.jobId, 'job', async (jobDir) => {
    const audio = plan.renditions.find((r) => r.settings.audio)?.settings.audio;
    if (chunk.audioHead && audio)
      window = { ...window, audioInput: await encodeAudioHead(options, audio, window, source, jobDir) };
    return encodeHlsJob(options, source, {
      jobDir,
      plan,
      outputUrls: chunk.outputUrls,
      measureQuality: chunk.measureQuality,
      window,
      keep: (name) => name !== hlsPlaylistName && (name !== hlsInitName || chunk.index === 0),
    });
  });
}

/**
 * The chunk's window of the video. Without the audio track (a frame-accurate clip's first or last
 * segment) the chunk encodes the source's audio for its window, as a whole encode does.
 */
function windowOf(chunk: ChunkEncode): ChunkWindow {
  if (!(chunk.startSeconds >= 0 && chunk.durationSeconds > 0 && chunk.firstSegment >= 0 && chunk.index >= 0)) {
    throw new InvalidRequestError(
      `chunk ${chunk.index} at ${chunk.startSeconds} s for ${chunk.durationSeconds} s is not a window of the video`,
    );
  }
  if (chunk.audioHead && chunk.audioUrl)
    throw new InvalidRequestError('a chunk copies its audio from audio_url or makes its audio_head, not both');
  return {
    startSeconds: chunk.startSeconds,
    durationSeconds: chunk.durationSeconds,
    firstSegment: chunk.firstSegment,
    ...(chunk.audioUrl ? { audioInput: chunk.audioUrl } : {}),
  };
}

/**
 * The audio head: the audio track up to the window's end, encoded (and padded) as
 * jobs/audio-track.ts encodes the track (the same packets), a second past it: the packets the
 * encoder flushes at its end fall outside it. Returns the file the chunk copies its audio from. It runs before the encode's uploads
 * start: the caller's signal alone stops it.
 */
async function encodeAudioHead(
  { request, priority, signal, logger }: EncodeJobOptions,
  audio: NonNullable<HlsEncodeSettings['audio']>,
  window: ChunkWindow,
  source: ProbeResult__Output,
  jobDir: string,
): Promise<string> {
  const output = join(jobDir, 'audio-head.mp4');
  const endSeconds = window.startSeconds + window.durationSeconds + audioHeadMarginSeconds;
  const { durationSeconds } = source;
  await runFfmpeg(audioTrackArgs({ input: request.inputUrl, audio, output, endSeconds, durationSeconds }), {
    signal,
    logger,
    priority,
  });
  return output;
}
