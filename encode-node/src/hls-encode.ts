// The ffmpeg runs of an HLS encode (hls-job.ts), with periodic progress: one
// rendition is one plain ffmpeg run inside its directory; several are one ffmpeg, the source decoded
// once and split across them. Two-pass runs pass 1 first, with a null output. Finished segments
// upload while the next ones encode.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProbeResult__Output } from '@kino/proto';
import {
  FfmpegAbortedError,
  encodeEndSeconds,
  hlsEncodeArgs,
  hlsLadderArgs,
  runFfmpeg,
  type ChunkWindow,
  type FfmpegProgress,
} from '@kino/ffmpeg';
import type { EncodeJobOptions } from './encode-options.ts';
import type { HlsPlan } from './hls-plan.ts';
import type { HlsUploads } from './hls-uploads.ts';
import type { PieceJoins } from './bootstrap-pieces.ts';
import { scanFinishedSegments } from './segment-scan.ts';

// Pass 1 of x264 runs its fast first-pass settings: it takes well under half of a two-pass encode.
const firstPassShare = 0.35;

export interface HlsEncoded {
  /** ffmpeg's last progress block of the (last) pass: its `frame` is the frames written. */
  last: FfmpegProgress | undefined;
  /** The tail of ffmpeg's error output: what the checks read a source that ended early from. */
  errorOutput: string;
}

/**
 * Encodes the plan's renditions into `uploads.outDir` (one directory per rendition), the whole
 * video or `window` of it, uploading finished segments meanwhile. A failed upload or scan stops
 * ffmpeg and is what this throws.
 */
export async function encodeHls(
  { request, threads, priority, signal, logger, onProgress }: EncodeJobOptions,
  source: ProbeResult__Output,
  { renditions, program, twoPass }: HlsPlan,
  {
    jobDir,
    uploads,
    window,
    pieces,
  }: { jobDir: string; uploads: HlsUploads; window?: ChunkWindow; pieces?: PieceJoins },
): Promise<HlsEncoded> {
  const { outDir } = uploads;
  await mkdir(outDir);
  for (const rendition of renditions) await mkdir(join(outDir, rendition.spec.key));
  // What this encode covers: the whole video, or the chunk's window of it (the last one may end early).
  const durationSeconds = encodeEndSeconds(source.durationSeconds, window);
  const single = renditions.length === 1;
  const ffmpegDir = single ? join(outDir, renditions[0]!.spec.key) : outDir;
  const encodeArgs = (pass: 1 | 2 | undefined) => {
    if (single) {
      const logFile = join(jobDir, 'x264-pass');
      return hlsEncodeArgs({
        input: request.inputUrl,
        settings: renditions[0]!.settings,
        threads,
        pass: pass ? { number: pass, logFile } : undefined,
        chunk: window,
        videoSeconds: source.videoDurationSeconds,
        durationSeconds: source.durationSeconds,
      });
    }
    const logFiles = renditions.map((_, k) => join(jobDir, `x264-pass-${k}`));
    return hlsLadderArgs({
      input: request.inputUrl,
      outputs: renditions.map((r) => ({ settings: r.settings, dir: r.spec.key })),
      threads,
      pass: pass ? { number: pass, logFiles } : undefined,
      chunk: window,
      videoSeconds: source.videoDurationSeconds,
      durationSeconds: source.durationSeconds,
    });
  };
  const report = (share: number, offset: number) => (progress: FfmpegProgress) =>
    onProgress({
      percent: Math.min(100, offset + progress.percent * share),
      encodedSeconds: progress.outTimeSeconds,
      speed: progress.speed,
    });
  const run = { program, cwd: ffmpegDir, durationSeconds, signal: uploads.jobSignal, logger, priority };

  if (twoPass) await runFfmpeg(encodeArgs(1), { ...run, onProgress: report(firstPassShare, 0) });
  const stopScan = scanFinishedSegments(
    outDir,
    renditions.map((r) => r.prefix),
    // A window muxed into pieces: its later pieces go up joined into segments (bootstrap-pieces.ts).
    (names) => (pieces ? pieces.uploadable(names).then((ready) => uploads.uploadNew(ready)) : uploads.uploadNew(names)),
    (error) => uploads.fail(error),
  );
  let errorOutput = '';
  try {
    const last = await runFfmpeg(encodeArgs(twoPass ? 2 : undefined), {
      ...run,
      onErrorOutput: (tail) => (errorOutput = tail),
      onProgress: twoPass ? report(1 - firstPassShare, firstPassShare * 100) : report(1, 0),
    });
    return { last, errorOutput };
  } catch (error) {
    // An aborted ffmpeg because an upload or a scan failed: report that failure, not the abort.
    if (error instanceof FfmpegAbortedError && !signal.aborted) throw uploads.firstFailure ?? error;
    throw error;
  } finally {
    stopScan();
  }
}
