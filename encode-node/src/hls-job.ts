// The steps an HLS encode job shares (jobs/whole.ts, jobs/chunk.ts), once its plan and window are
// made: encode with segments uploading meanwhile, check what ffmpeg wrote, upload the rest (then
// what goes last), score, measure, and answer. The uploads stop whatever happened.
import { join } from 'node:path';
import type { EncodeDone, ProbeResult__Output } from '@kino/proto';
import { encodeEndSeconds, type ChunkWindow } from '@kino/ffmpeg';
import type { EncodeJobOptions } from './encode-options.ts';
import { checkRenditions } from './hls-checks.ts';
import { encodeHls } from './hls-encode.ts';
import type { HlsPlan } from './hls-plan.ts';
import { HlsUploads } from './hls-uploads.ts';
import { bootstrapWindowPassesFirstSegment } from '@kino/proto/contract';
import { PieceJoins, withPiecesJoined } from './bootstrap-pieces.ts';
import { notScored, scoreRenditions } from './quality-score.ts';
import { measureRenditions } from './rendition-done.ts';

export interface HlsJob {
  /** The job's directory (withJobDir): ffmpeg writes in its `hls/`. */
  jobDir: string;
  plan: HlsPlan;
  outputUrls: Record<string, string>;
  /** Score the renditions (only videos that asked). */
  measureQuality: boolean;
  /** A chunk's window of the video; absent: the whole video. */
  window?: ChunkWindow;
  /** Which files of a rendition's directory go up, by name (a chunk's: no playlist). */
  keep: (name: string) => boolean;
  /** Files that go up once every other one is in storage (a whole encode's playlists). */
  last?: string[];
}

export async function encodeHlsJob(
  options: EncodeJobOptions,
  source: ProbeResult__Output,
  { jobDir, plan, outputUrls, measureQuality, window, keep, last = [] }: HlsJob,
): Promise<EncodeDone> {
  const { signal, logger, onProgress } = options;
  const uploads = new HlsUploads(join(jobDir, 'hls'), outputUrls, signal);
  const pieces = window && bootstrapWindowPassesFirstSegment(window) ? new PieceJoins(uploads.outDir) : undefined;
  try {
    const encodeOptions = { jobDir, uploads, window, ...(pieces ? { pieces } : {}) };
    const { last: lastProgress, errorOutput } = await encodeHls(options, source, plan, encodeOptions);
    await pieces?.joinRest(plan.renditions.map((r) => r.prefix));
    const startSeconds = window?.startSeconds ?? 0;
    const coverage = {
      expectedSeconds: encodeEndSeconds(coveredSeconds(plan, source), window),
      startSeconds,
      source,
      errorOutput,
    };
    const encoded = await checkRenditions(plan.renditions, uploads, coverage, keep, logger, pieces && withPiecesJoined);
    const files = encoded.flatMap((e) => e.files);
    await uploads.uploadRest(files, last);
    // Scored on their first segment, all renditions at once.
    const scores = measureQuality
      ? await scoreRenditions(options, source, encoded, { outDir: uploads.outDir, jobDir, startSeconds })
      : notScored();
    const renditions = await measureRenditions(uploads.outDir, encoded, scores, lastProgress);
    onProgress({ percent: 100, encodedSeconds: renditions[0]!.durationSeconds, speed: lastProgress?.speed ?? 0 });
    return { bytesWritten: uploads.bytes, files, renditions };
  } finally {
    await uploads.close();
  }
}

/**
 * The seconds of the video an encode covers: the source's picture, or for a track added to a ready
 * video the video's duration it is padded or cut to (its file's own length is no part of it).
 */
function coveredSeconds(plan: HlsPlan, source: ProbeResult__Output): number {
  const added = plan.renditions.find((r) => r.spec.audioEndSeconds > 0);
  return added ? added.spec.audioEndSeconds : source.videoDurationSeconds;
}
