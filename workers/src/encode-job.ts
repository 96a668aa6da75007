// One rendition, the runner way: read the source from its presigned URL, encode to HLS in a job
// directory with periodic progress, upload every file through its presigned PUT, and remove the
// job directory whatever happened. Segments upload while ffmpeg is still encoding the next ones;
// the init segment and then the playlist go last, so a playlist in storage means its files are too.
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { EncodeDone, EncodeRequest__Output } from '@kino/proto';
import {
  FfmpegAbortedError,
  apiNameOfPixelFormat,
  contentTypeForHlsFile,
  hlsEncodeArgs,
  hlsInitName,
  hlsPlaylistName,
  measureBandwidth,
  parseInitSegment,
  parseMediaPlaylist,
  probeMedia,
  runFfmpeg,
  type FfmpegProgress,
} from './ffmpeg/index.ts';
import { resolveHlsSettings } from './encode-settings.ts';
import { InvalidRequestError, StorageUnavailableError } from './errors.ts';
import { makeJobDir } from './job-dir.ts';
import { UploadQueue, uploadFile } from './upload.ts';

export interface EncodeJobProgress {
  percent: number;
  encodedSeconds: number;
  speed: number;
}

export interface EncodeJobOptions {
  request: EncodeRequest__Output;
  /** Parent of the job's temporary directory. */
  workDir: string;
  /** ffmpeg encoder threads; 0: automatic. */
  threads: number;
  signal: AbortSignal;
  logger: Logger;
  onProgress: (progress: EncodeJobProgress) => void;
}

// Pass 1 of x264 runs its fast first-pass settings: it takes well under half of a two-pass encode.
const firstPassShare = 0.35;
const uploadConcurrency = 4;
const scanIntervalMs = 500;
const segmentName = /^seg-(\d+)\.m4s$/;

function validate(request: EncodeRequest__Output): void {
  if (!request.inputUrl) throw new InvalidRequestError('input_url is required');
  if (!request.rendition) throw new InvalidRequestError('rendition is required');
  for (const name of [hlsPlaylistName, hlsInitName]) {
    if (!request.outputUrls[name]) throw new InvalidRequestError(`output_urls has no URL for ${name}`);
  }
}

function missingUrl(name: string): InvalidRequestError {
  return new InvalidRequestError(`output_urls has no URL for ${name}: the encode produced more segments than URLs were given`);
}

export async function runEncodeJob({ request, workDir, threads, signal, logger, onProgress }: EncodeJobOptions): Promise<EncodeDone> {
  validate(request);
  const source = await probeMedia(request.inputUrl, { signal });
  const settings = resolveHlsSettings(request.rendition!, source);
  const durationSeconds = request.durationSeconds > 0 ? request.durationSeconds : source.durationSeconds;
  logger.info({ settings, source: { width: source.width, height: source.height, frameRate: source.frameRate } }, 'encode starting');

  const jobDir = await makeJobDir(workDir, request.jobId, 'job');
  // The job stops when the caller cancels or an upload fails, whichever comes first.
  const job = new AbortController();
  const stopJob = () => job.abort();
  signal.addEventListener('abort', stopJob, { once: true });
  let uploadFailure: unknown;
  const uploads = new UploadQueue(uploadConcurrency, (error) => {
    uploadFailure = error;
    job.abort();
  });
  const uploaded = new Set<string>();
  const outDir = join(jobDir, 'hls');
  const upload = (name: string) => {
    const url = request.outputUrls[name];
    if (!url) throw missingUrl(name);
    uploaded.add(name);
    uploads.add(() => uploadFile(join(outDir, name), url, contentTypeForHlsFile(name), job.signal));
  };
  // ffmpeg closes a segment before it opens the next: every segment but the newest is complete.
  const uploadFinishedSegments = async () => {
    const segments = (await readdir(outDir)).filter((n) => segmentName.test(n)).sort();
    for (const name of segments.slice(0, -1)) if (!uploaded.has(name)) upload(name);
  };
  let scanner: NodeJS.Timeout | undefined;

  try {
    await mkdir(outDir);
    const report = (share: number, offset: number) => (progress: FfmpegProgress) =>
      onProgress({
        percent: Math.min(100, offset + progress.percent * share),
        encodedSeconds: progress.outTimeSeconds,
        speed: progress.speed,
      });
    const logFile = join(jobDir, 'x264-pass');
    if (settings.twoPass) {
      await runFfmpeg(hlsEncodeArgs({ input: request.inputUrl, settings, threads, pass: { number: 1, logFile } }), {
        cwd: outDir, durationSeconds, signal: job.signal, logger, onProgress: report(firstPassShare, 0),
      });
    }
    let scanFailure: unknown;
    scanner = setInterval(() => {
      uploadFinishedSegments().catch((error: unknown) => {
        scanFailure ??= error;
        job.abort();
      });
    }, scanIntervalMs);
    let last: FfmpegProgress | undefined;
    try {
      last = await runFfmpeg(
        hlsEncodeArgs({ input: request.inputUrl, settings, threads, pass: settings.twoPass ? { number: 2, logFile } : undefined }),
        {
          cwd: outDir, durationSeconds, signal: job.signal, logger,
          onProgress: settings.twoPass ? report(1 - firstPassShare, firstPassShare * 100) : report(1, 0),
        },
      );
    } catch (error) {
      // An aborted ffmpeg because an upload or a scan failed: report that failure, not the abort.
      if (error instanceof FfmpegAbortedError && !signal.aborted) throw uploadFailure ?? scanFailure ?? error;
      throw error;
    } finally {
      clearInterval(scanner);
    }

    // A source read that ended early looks like a clean end to ffmpeg: check what it covered.
    const playlist = parseMediaPlaylist(await readFile(join(outDir, hlsPlaylistName), 'utf8'));
    const encodedSeconds = playlist.segments.reduce((sum, s) => sum + s.durationSeconds, 0);
    if (encodedSeconds < source.videoDurationSeconds * 0.97 - 0.5) {
      throw new StorageUnavailableError(
        `the encode covered ${encodedSeconds.toFixed(2)} s of the source's ${source.videoDurationSeconds.toFixed(2)} s: the source read ended early`,
      );
    }

    // Every file ffmpeg wrote must have somewhere to go; uploading part of a rendition would
    // leave a playlist pointing at nothing.
    const files = (await readdir(outDir)).sort();
    const missing = files.filter((name) => !request.outputUrls[name]);
    if (missing.length > 0) throw missingUrl(missing.slice(0, 5).join(', '));
    for (const name of files) if (name !== hlsPlaylistName && !uploaded.has(name)) upload(name);
    await uploads.drain();
    uploads.add(() => uploadFile(join(outDir, hlsPlaylistName), request.outputUrls[hlsPlaylistName]!, contentTypeForHlsFile(hlsPlaylistName), job.signal));
    await uploads.drain();

    const sizes = new Map<string, number>();
    for (const name of files) sizes.set(name, (await stat(join(outDir, name))).size);
    const bandwidth = measureBandwidth(
      playlist.segments.map((s) => ({ sizeBytes: sizes.get(s.uri) ?? 0, durationSeconds: s.durationSeconds })),
    );
    const init = parseInitSegment(await readFile(join(outDir, hlsInitName)));
    onProgress({ percent: 100, encodedSeconds: bandwidth.durationSeconds, speed: last?.speed ?? 0 });
    return {
      segmentCount: playlist.segments.length,
      peakBandwidth: bandwidth.peakBitsPerSecond,
      averageBandwidth: bandwidth.averageBitsPerSecond,
      codecs: init.codecs,
      frameCount: last?.frame ?? 0,
      width: init.width,
      height: init.height,
      bytesWritten: uploads.bytes,
      files,
      pixelFormat: apiNameOfPixelFormat(settings.pixelFormat),
      audioFormat: settings.audio && init.audioCodec ? settings.audio.encoding.format : '',
      durationSeconds: bandwidth.durationSeconds,
    };
  } finally {
    clearInterval(scanner);
    signal.removeEventListener('abort', stopJob);
    job.abort(); // stops uploads still in flight after a failure
    await uploads.drain().catch(() => {});
    await rm(jobDir, { recursive: true, force: true });
  }
}
