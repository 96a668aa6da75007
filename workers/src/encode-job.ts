// One rendition, the runner way: read the source from its presigned URL, encode to HLS in a job
// directory with periodic progress, upload every file through its presigned PUT, and remove the
// job directory whatever happened.
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { EncodeDone, EncodeRequest__Output } from '@kino/proto';
import {
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
import { InvalidRequestError } from './errors.ts';
import { forEachLimited, uploadFile } from './upload.ts';

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

function validate(request: EncodeRequest__Output): void {
  if (!request.inputUrl) throw new InvalidRequestError('input_url is required');
  if (!request.rendition) throw new InvalidRequestError('rendition is required');
  for (const name of [hlsPlaylistName, hlsInitName]) {
    if (!request.outputUrls[name]) throw new InvalidRequestError(`output_urls has no URL for ${name}`);
  }
}

export async function runEncodeJob({ request, workDir, threads, signal, logger, onProgress }: EncodeJobOptions): Promise<EncodeDone> {
  validate(request);
  const source = await probeMedia(request.inputUrl, { signal });
  const settings = resolveHlsSettings(request.rendition!, source);
  const durationSeconds = request.durationSeconds > 0 ? request.durationSeconds : source.durationSeconds;
  logger.info({ settings, source: { width: source.width, height: source.height, frameRate: source.frameRate } }, 'encode starting');

  await mkdir(workDir, { recursive: true });
  const jobDir = await mkdtemp(join(workDir, `${request.jobId || 'job'}-`));
  try {
    const outDir = join(jobDir, 'hls');
    await mkdir(outDir);
    const report = (share: number, offset: number) => (progress: FfmpegProgress) =>
      onProgress({
        percent: Math.min(100, offset + progress.percent * share),
        encodedSeconds: progress.outTimeSeconds,
        speed: progress.speed,
      });

    let last: FfmpegProgress | undefined;
    if (settings.twoPass) {
      const logFile = join(jobDir, 'x264-pass');
      await runFfmpeg(hlsEncodeArgs({ input: request.inputUrl, settings, threads, pass: { number: 1, logFile } }), {
        cwd: outDir, durationSeconds, signal, logger, onProgress: report(firstPassShare, 0),
      });
      last = await runFfmpeg(hlsEncodeArgs({ input: request.inputUrl, settings, threads, pass: { number: 2, logFile } }), {
        cwd: outDir, durationSeconds, signal, logger, onProgress: report(1 - firstPassShare, firstPassShare * 100),
      });
    } else {
      last = await runFfmpeg(hlsEncodeArgs({ input: request.inputUrl, settings, threads }), {
        cwd: outDir, durationSeconds, signal, logger, onProgress: report(1, 0),
      });
    }

    // Every file ffmpeg wrote must have somewhere to go: a missing URL is the caller's mistake,
    // and uploading part of a rendition would leave a playlist pointing at nothing.
    const files = (await readdir(outDir)).sort();
    const missing = files.filter((name) => !request.outputUrls[name]);
    if (missing.length > 0) {
      throw new InvalidRequestError(`output_urls has no URL for ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''}`);
    }

    const playlist = parseMediaPlaylist(await readFile(join(outDir, hlsPlaylistName), 'utf8'));
    const sizes = new Map<string, number>();
    for (const name of files) sizes.set(name, (await stat(join(outDir, name))).size);
    const bandwidth = measureBandwidth(
      playlist.segments.map((s) => ({ sizeBytes: sizes.get(s.uri) ?? 0, durationSeconds: s.durationSeconds })),
    );
    const init = parseInitSegment(await readFile(join(outDir, hlsInitName)));

    // The playlist goes last: once it is in storage, everything it names is too.
    const uploadOrder = [...files.filter((f) => f !== hlsPlaylistName), hlsPlaylistName];
    let bytesWritten = 0;
    await forEachLimited(uploadOrder.slice(0, -1), uploadConcurrency, async (name) => {
      bytesWritten += await uploadFile(join(outDir, name), request.outputUrls[name]!, contentTypeForHlsFile(name), signal);
    });
    bytesWritten += await uploadFile(join(outDir, hlsPlaylistName), request.outputUrls[hlsPlaylistName]!, contentTypeForHlsFile(hlsPlaylistName), signal);

    onProgress({ percent: 100, encodedSeconds: durationSeconds, speed: last?.speed ?? 0 });
    return {
      segmentCount: playlist.segments.length,
      peakBandwidth: bandwidth.peakBitsPerSecond,
      averageBandwidth: bandwidth.averageBitsPerSecond,
      codecs: init.codecs,
      frameCount: last?.frame ?? 0,
      width: init.width,
      height: init.height,
      bytesWritten,
      files,
      pixelFormat: apiNameOfPixelFormat(settings.pixelFormat),
      audioFormat: settings.audio && init.audioCodec ? settings.audio.encoding.format : '',
      durationSeconds: bandwidth.durationSeconds,
    };
  } finally {
    await rm(jobDir, { recursive: true, force: true });
  }
}
