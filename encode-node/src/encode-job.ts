// One encode: one or more renditions from one decode of the source, the runner way: read the source
// from its presigned URL, encode to HLS in a job directory with periodic progress, upload every file
// through its presigned PUT, and remove the job directory whatever happened. Segments upload while
// ffmpeg is still encoding the next ones; the init segment and then the playlist go last, so a
// playlist in storage means its files are too.
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { EncodeDone, EncodeRequest__Output, ProbeResult__Output, RenditionDone, RenditionSpec__Output, SegmentDone } from '@kino/proto';
import { contentTypeForHlsFile, hlsInitName, hlsMinimumLastSegmentSeconds, hlsPlaylistName, measureBandwidth, pixelFormatOfX264, workContentTypes } from '@kino/proto/contract';
import {
  FfmpegAbortedError,
  audioTrackArgs,
  reportsTruncatedInput,
  isAudioOnly,
  encodeEndSeconds,
  hlsEncodeArgs,
  hlsLadderArgs,
  parseInitSegment,
  parseMediaPlaylist,
  parseQualityLog,
  qualityArgs,
  runFfmpeg,
  type ChunkWindow,
  type ProcessPriority,
  type FfmpegProgress,
  type HlsEncodeSettings,
  type MediaPlaylist,
} from '@kino/ffmpeg';
import { resolveAudioSettings, resolveHlsSettings } from './encode-settings.ts';
import { InvalidRequestError, InvalidSourceError, StorageUnavailableError } from './errors.ts';
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
  /** The quality ffmpeg (libvmaf, SVT-AV1 2+): AV1 encodes and quality scores run on it; absent: neither. */
  qualityFfmpeg?: string;
  /**
   * The nice value every ffmpeg of the job runs at (NodeJobs.startEncode: 0 when someone waits for
   * it, `backgroundNiceness` otherwise); raised while the job runs when a viewer starts waiting.
   */
  priority: ProcessPriority;
  signal: AbortSignal;
  logger: Logger;
  onProgress: (progress: EncodeJobProgress) => void;
}

// Pass 1 of x264 runs its fast first-pass settings: it takes well under half of a two-pass encode.
const firstPassShare = 0.35;
const uploadConcurrency = 4;
const scanIntervalMs = 500;
const segmentName = /^seg-(\d+)\.m4s$/;

/** A rendition of the job: its settings, and the name prefix of its files (`720p/`). */
interface Output {
  spec: RenditionSpec__Output;
  settings: HlsEncodeSettings;
  prefix: string;
}

const renditionKey = /^[A-Za-z0-9_-]{1,32}$/;

/** What an HLS encode (the whole video or one chunk) makes: renditions, their URLs, and the chunk's window. */
interface HlsJob {
  renditions: RenditionSpec__Output[];
  outputUrls: Record<string, string>;
  /**
   * Set for a chunk: its window, its index (the first chunk writes the init segment), and whether it
   * makes its audio head first (ChunkEncode.audio_head).
   */
  chunk?: { index: number; window: ChunkWindow; audioHead: boolean };
  /** Score every rendition against the source before answering. */
  measureQuality: boolean;
}

/**
 * The files a rendition must have a URL for: a chunk writes no playlist, and only the first chunk
 * the init segment.
 */
function requiredFiles(job: HlsJob): string[] {
  if (!job.chunk) return [hlsPlaylistName, hlsInitName];
  return job.chunk.index === 0 ? [hlsInitName] : [];
}

function validate(job: HlsJob): RenditionSpec__Output[] {
  const specs = job.renditions;
  if (specs.length === 0) throw new InvalidRequestError('renditions is empty: an encode makes at least one');
  const keys = new Set<string>();
  for (const spec of specs) {
    // Keys name directories and URL prefixes: nothing a path could escape with.
    if (!renditionKey.test(spec.key)) throw new InvalidRequestError(`rendition key "${spec.key}" is not a plain name`);
    if (keys.has(spec.key)) throw new InvalidRequestError(`rendition key "${spec.key}" appears twice`);
    keys.add(spec.key);
    const prefix = `${spec.key}/`;
    for (const name of requiredFiles(job)) {
      if (!job.outputUrls[prefix + name]) throw new InvalidRequestError(`output_urls has no URL for ${prefix + name}`);
    }
  }
  return specs;
}

/** The source as the orchestrator probed it: the node does not probe again, but refuses a probe that says nothing. */
function sourceOf(request: EncodeRequest__Output): ProbeResult__Output {
  const { source } = request;
  const picture = source && source.frameRate > 0 && source.width > 0 && source.height > 0;
  // An audio-only source (no picture, sound) is one too: its one rendition is audio alone.
  if (!source || !(source.durationSeconds > 0 && source.videoDurationSeconds > 0 && (picture || isAudioOnly(source)))) {
    throw new InvalidRequestError('source (the probe of input_url) is missing or describes no video or audio');
  }
  return source;
}

function missingUrl(name: string): InvalidRequestError {
  return new InvalidRequestError(`output_urls has no URL for ${name}: the encode produced more segments than URLs were given`);
}

/** How far past its chunk's window an audio head runs: the AAC encoder's flushed packets land beyond it. */
const audioHeadMarginSeconds = 1;

/** One encode, by its kind: the whole video, one chunk of it, or its audio track. */
export async function runEncodeJob(options: EncodeJobOptions): Promise<EncodeDone> {
  const { request } = options;
  if (!request.inputUrl) throw new InvalidRequestError('input_url is required');
  const source = sourceOf(request);
  switch (request.job) {
    case 'whole':
      return runHlsJob(options, source, { renditions: request.whole!.renditions, outputUrls: request.whole!.outputUrls, measureQuality: request.whole!.measureQuality });
    case 'chunk': {
      const chunk = request.chunk!;
      if (!(chunk.startSeconds >= 0 && chunk.durationSeconds > 0 && chunk.firstSegment >= 0 && chunk.index >= 0)) {
        throw new InvalidRequestError(`chunk ${chunk.index} at ${chunk.startSeconds} s for ${chunk.durationSeconds} s is not a window of the video`);
      }
      if (chunk.audioHead && chunk.audioUrl) throw new InvalidRequestError('a chunk copies its audio from audio_url or makes its audio_head, not both');
      const window: ChunkWindow = {
        startSeconds: chunk.startSeconds,
        durationSeconds: chunk.durationSeconds,
        firstSegment: chunk.firstSegment,
        ...(chunk.audioUrl ? { audioInput: chunk.audioUrl } : {}),
      };
      return runHlsJob(options, source, {
        renditions: chunk.renditions,
        outputUrls: chunk.outputUrls,
        chunk: { index: chunk.index, window, audioHead: chunk.audioHead },
        measureQuality: chunk.measureQuality,
      });
    }
    case 'audioTrack':
      return runAudioTrackJob(options, source, request.audioTrack!);
    default:
      throw new InvalidRequestError('the request names no job: one of whole, chunk or audio_track');
  }
}

/**
 * The audio track of a chunked encode: the whole source's audio, with the ladder's audio settings,
 * as one MP4 (the chunks stream-copy their part of it).
 */
async function runAudioTrackJob(
  { request, workDir, priority, signal, logger, onProgress }: EncodeJobOptions,
  source: ProbeResult__Output,
  track: NonNullable<EncodeRequest__Output['audioTrack']>,
): Promise<EncodeDone> {
  if (!track.outputUrl) throw new InvalidRequestError('audio_track.output_url is required');
  if (!source.hasAudio) throw new InvalidRequestError('the audio track of a video without audio was asked for');
  const audio = track.copy ? 'copy' : resolveAudioSettings(track, source);
  if (!audio) throw new InvalidRequestError('the audio track of a video without audio (or at 0 kbps) was asked for');
  const jobDir = await makeJobDir(workDir, request.jobId, 'audio');
  try {
    const output = join(jobDir, 'audio.mp4');
    const { durationSeconds } = source;
    logger.info({ audio }, 'audio track starting');
    await runFfmpeg(audioTrackArgs({ input: request.inputUrl, audio, output }), {
      durationSeconds, signal, logger, priority,
      onProgress: (progress) => onProgress({ percent: progress.percent, encodedSeconds: progress.outTimeSeconds, speed: progress.speed }),
    });
    const bytes = await uploadFile(output, track.outputUrl, workContentTypes.audioTrack, signal);
    onProgress({ percent: 100, encodedSeconds: durationSeconds, speed: 0 });
    return { bytesWritten: bytes, files: ['audio.mp4'], renditions: [] };
  } finally {
    await rm(jobDir, { recursive: true, force: true });
  }
}

/**
 * The ffmpeg an encode runs on: Debian's (on PATH) for H.264 and HEVC; the quality ffmpeg for AV1,
 * as SVT-AV1 before 2 (Debian 12's 1.4) ignores forced keyframes and so would cut its segments
 * apart from the ladder's. One codec per encode (the orchestrator's encodeGroups).
 */
function ffmpegFor(outputs: Output[], qualityFfmpeg: string | undefined): string | undefined {
  const codecs = new Set(outputs.map((o) => o.settings.videoCodec));
  if (codecs.size > 1) throw new InvalidRequestError(`renditions of one encode must share a video codec, not ${[...codecs].join(' and ')}`);
  if (!codecs.has('av1')) return undefined;
  if (!qualityFfmpeg) throw new InvalidRequestError('AV1 renditions need the quality ffmpeg, and this node has none (NODE_QUALITY_FFMPEG)');
  return qualityFfmpeg;
}

/** A rendition's score against the source: 0 frames when it was not measured. */
type QualityResult = Pick<Required<RenditionDone>, 'vmaf' | 'psnr' | 'qualityFrames'>;
const notMeasured: QualityResult = { vmaf: 0, psnr: 0, qualityFrames: 0 };

/**
 * Which frames a node scores: one in ten of the encode's first segment. libvmaf at the source's size
 * is dear: every third frame of a 30 s 1080p chunk of the `high` ladder cost 1.6x the chunk's
 * encode (90 against 55 CPU seconds), every frame 4x; this sample costs 6.5 CPU seconds (12 %),
 * and its scores were within 0.8 of every frame's (docs/decisions/quality.md#in-the-farm).
 */
const qualitySubsample = 10;

/**
 * Scores the renditions the job wrote (init and first segment, still in the job directory) against
 * the source's frames they were made from, in one pass over one decode of the source. A score is
 * information, not output: when it cannot be made the encode stands and says so in the log.
 */
async function measureQuality(
  { request, qualityFfmpeg, threads, priority, signal, logger }: EncodeJobOptions,
  source: ProbeResult__Output,
  scored: { output: Output; dir: string; firstSegment: { uri: string; durationSeconds: number } }[],
  jobDir: string,
  chunk: ChunkWindow | undefined,
): Promise<Map<string, QualityResult>> {
  const results = new Map<string, QualityResult>();
  if (scored.length === 0) return results;
  if (!qualityFfmpeg) {
    logger.warn('quality not measured: this node has no quality ffmpeg (NODE_QUALITY_FFMPEG)');
    return results;
  }
  const renditions = scored.map(({ output }) => ({
    key: output.spec.key,
    input: join(jobDir, `${output.spec.key}-sample.mp4`),
    logPath: join(jobDir, `${output.spec.key}-quality.json`),
  }));
  try {
    for (const [k, { dir, firstSegment }] of scored.entries()) {
      await writeFile(renditions[k]!.input, Buffer.concat([await readFile(join(dir, hlsInitName)), await readFile(join(dir, firstSegment.uri))]));
    }
    const settings = scored[0]!.output.settings;
    await runFfmpeg(
      qualityArgs({
        renditions,
        reference: request.inputUrl,
        width: source.width,
        height: source.height,
        threads: threads || cpus().length,
        subsample: qualitySubsample,
        window: { startSeconds: chunk?.startSeconds ?? 0, durationSeconds: scored[0]!.firstSegment.durationSeconds },
        ...(settings.capFrameRate ? { frameRate: settings.frameRate } : {}),
      }),
      { program: qualityFfmpeg, signal, logger, priority },
    );
    for (const { key, logPath } of renditions) {
      const score = parseQualityLog(await readFile(logPath, 'utf8'));
      results.set(key, { vmaf: score.vmaf, psnr: score.psnr, qualityFrames: score.frames });
    }
    logger.info({ scores: Object.fromEntries(results) }, 'quality measured');
  } catch (error) {
    if (signal.aborted) throw error;
    logger.warn({ err: error }, 'quality not measured: the scoring failed');
    results.clear();
  }
  return results;
}

async function runHlsJob(
  options: EncodeJobOptions,
  source: ProbeResult__Output,
  hlsJob: HlsJob,
): Promise<EncodeDone> {
  const { request, workDir, threads, priority, signal, logger, onProgress } = options;
  const specs = validate(hlsJob);
  const { outputUrls } = hlsJob;
  const outputs: Output[] = specs.map((spec) => ({ spec, settings: resolveHlsSettings(spec, source), prefix: `${spec.key}/` }));
  const program = ffmpegFor(outputs, options.qualityFfmpeg);
  // A chunk without the audio track (a frame-accurate clip's first or last segment) encodes the
  // source's audio for its window, as a whole encode does; one making its audio head copies it
  // from there (audioInput, set once the job's directory exists).
  let chunk = hlsJob.chunk?.window;
  const twoPass = outputs.some((o) => o.settings.twoPass);
  if (outputs.some((o) => o.settings.twoPass !== twoPass)) {
    // One process runs both passes' outputs together (the orchestrator groups renditions accordingly).
    throw new InvalidRequestError('renditions of one encode must all be two-pass or all single-pass');
  }
  // What this encode covers: the whole video, or the chunk's window of it (the last one may end early).
  const durationSeconds = encodeEndSeconds(source.durationSeconds, chunk);
  const expectedSeconds = encodeEndSeconds(source.videoDurationSeconds, chunk);
  logger.info(
    {
      settings: outputs.map((o) => ({ key: o.spec.key, ...o.settings })),
      source: { width: source.width, height: source.height, frameRate: source.frameRate },
      ...(hlsJob.chunk ? { chunk: { index: hlsJob.chunk.index, ...chunk } } : {}),
    },
    'encode starting',
  );

  const jobDir = await makeJobDir(workDir, request.jobId, 'job');
  // The job stops when the caller cancels or an upload fails, whichever comes first.
  const job = new AbortController();
  const stopJob = () => job.abort();
  signal.addEventListener('abort', stopJob, { once: true });
  // What stopped the job first (an upload, or a scan for finished segments, that failed): reported
  // rather than what its abort then caused (ffmpeg killed, the uploads in flight cut off).
  let jobFailure: unknown;
  const failJob = (error: unknown) => {
    jobFailure ??= error;
    job.abort();
  };
  const uploads = new UploadQueue(uploadConcurrency, failJob);
  const uploaded = new Set<string>();
  const outDir = join(jobDir, 'hls');
  /** Uploads a file by its name relative to outDir, which is also its output_urls key. */
  const upload = (name: string) => {
    const url = outputUrls[name];
    if (!url) throw missingUrl(name);
    uploaded.add(name);
    uploads.add(() => uploadFile(join(outDir, name), url, contentTypeForHlsFile(name), job.signal));
  };
  const filesOf = async (output: Output) => (await readdir(join(outDir, output.prefix))).sort();
  // ffmpeg writes each segment under a temporary name and renames it when complete (hls_flags
  // temp_file): every segment present is complete, and goes up at once. Waiting for the next one
  // to appear, as before, held each run's last segments until the run ended (a viewer waited).
  const uploadFinishedSegments = async () => {
    for (const output of outputs) {
      const segments = (await filesOf(output)).filter((n) => segmentName.test(n));
      for (const name of segments) if (!uploaded.has(output.prefix + name)) upload(output.prefix + name);
    }
  };
  // One rendition: a plain encode run inside its directory; several: one decode split across them.
  const single = outputs.length === 1;
  const ffmpegDir = single ? join(outDir, outputs[0]!.spec.key) : outDir;
  const encodeArgs = (pass: 1 | 2 | undefined) => {
    if (single) {
      const logFile = join(jobDir, 'x264-pass');
      return hlsEncodeArgs({ input: request.inputUrl, settings: outputs[0]!.settings, threads, pass: pass ? { number: pass, logFile } : undefined, chunk, videoSeconds: source.videoDurationSeconds });
    }
    const logFiles = outputs.map((_, k) => join(jobDir, `x264-pass-${k}`));
    return hlsLadderArgs({
      input: request.inputUrl,
      outputs: outputs.map((o) => ({ settings: o.settings, dir: o.spec.key })),
      threads,
      pass: pass ? { number: pass, logFiles } : undefined,
      chunk,
      videoSeconds: source.videoDurationSeconds,
    });
  };
  let scanner: NodeJS.Timeout | undefined;

  try {
    await mkdir(outDir);
    for (const output of outputs) await mkdir(join(outDir, output.spec.key));
    const report = (share: number, offset: number) => (progress: FfmpegProgress) =>
      onProgress({
        percent: Math.min(100, offset + progress.percent * share),
        encodedSeconds: progress.outTimeSeconds,
        speed: progress.speed,
      });
    const audio = outputs.find((o) => o.settings.audio)?.settings.audio;
    if (hlsJob.chunk?.audioHead && chunk && audio) {
      // The audio track up to the window's end, encoded as encodeAudioTrack encodes it (the same
      // packets), a second past it: the packets the encoder flushes at its end fall outside it.
      const audioInput = join(jobDir, 'audio-head.mp4');
      await runFfmpeg(audioTrackArgs({ input: request.inputUrl, audio, output: audioInput, endSeconds: chunk.startSeconds + chunk.durationSeconds + audioHeadMarginSeconds }), {
        signal: job.signal, logger, priority,
      });
      chunk = { ...chunk, audioInput };
    }
    if (twoPass) {
      await runFfmpeg(encodeArgs(1), {
        program, cwd: ffmpegDir, durationSeconds, signal: job.signal, logger, priority, onProgress: report(firstPassShare, 0),
      });
    }
    scanner = setInterval(() => {
      uploadFinishedSegments().catch(failJob);
    }, scanIntervalMs);
    let last: FfmpegProgress | undefined;
    let errorOutput = '';
    try {
      last = await runFfmpeg(encodeArgs(twoPass ? 2 : undefined), {
        program, cwd: ffmpegDir, durationSeconds, signal: job.signal, logger, priority,
        onErrorOutput: (tail) => (errorOutput = tail),
        onProgress: twoPass ? report(1 - firstPassShare, firstPassShare * 100) : report(1, 0),
      });
    } catch (error) {
      // An aborted ffmpeg because an upload or a scan failed: report that failure, not the abort.
      if (error instanceof FfmpegAbortedError && !signal.aborted) throw jobFailure ?? error;
      throw error;
    } finally {
      clearInterval(scanner);
    }

    const playlists: MediaPlaylist[] = [];
    const filesByOutput: string[][] = [];
    for (const output of outputs) {
      // A source read that ended early looks like a clean end to ffmpeg: check what it covered.
      const playlist = parseMediaPlaylist(await readFile(join(outDir, output.prefix + hlsPlaylistName), 'utf8'));
      const encodedSeconds = playlist.segments.reduce((sum, s) => sum + s.durationSeconds, 0);
      if (encodedSeconds < expectedSeconds * 0.97 - 0.5) {
        // The source itself ends early (its index promised more): final, the video cannot be made.
        if (reportsTruncatedInput(errorOutput)) {
          throw new InvalidSourceError(
            `the source ends at about ${((chunk?.startSeconds ?? 0) + encodedSeconds).toFixed(1)} s, before the ${source.durationSeconds.toFixed(1)} s its index announces: the file is truncated or damaged`,
          );
        }
        throw new StorageUnavailableError(
          `the encode of ${output.spec.key} covered ${encodedSeconds.toFixed(2)} s of the ${expectedSeconds.toFixed(2)} s asked for: the source read ended early`,
        );
      }
      // The keyframes stop short of a sliver (keyframesEndSeconds): one here means the probed
      // duration was off, and the sliver may stall a player at the end.
      const last = playlist.segments.at(-1);
      if (playlist.segments.length > 1 && last && last.durationSeconds < hlsMinimumLastSegmentSeconds) {
        logger.warn({ rendition: output.spec.key, lastSegmentSeconds: last.durationSeconds, videoSeconds: source.videoDurationSeconds }, 'the last segment is shorter than the minimum');
      }
      playlists.push(playlist);
      // Every file ffmpeg wrote must have somewhere to go; uploading part of a rendition would
      // leave a playlist pointing at nothing.
      // A chunk's playlist stays here (the orchestrator writes the video's), and its init segment
      // too after the first chunk: every chunk writes the same one.
      const files = (await filesOf(output))
        .filter((name) => !chunk || (name !== hlsPlaylistName && (name !== hlsInitName || hlsJob.chunk!.index === 0)))
        .map((name) => output.prefix + name);
      const missing = files.filter((name) => !outputUrls[name]);
      if (missing.length > 0) throw missingUrl(missing.slice(0, 5).join(', '));
      filesByOutput.push(files);
    }
    const playlistNames = new Set(chunk ? [] : outputs.map((o) => o.prefix + hlsPlaylistName));
    for (const files of filesByOutput) for (const name of files) if (!playlistNames.has(name) && !uploaded.has(name)) upload(name);
    await uploads.drain();
    for (const name of playlistNames) {
      uploads.add(() => uploadFile(join(outDir, name), outputUrls[name]!, contentTypeForHlsFile(name), job.signal));
    }
    await uploads.drain();

    // Scored on their first segment, all renditions at once (only videos that asked; never audio alone).
    const scores = hlsJob.measureQuality
      ? await measureQuality(
        options,
        source,
        outputs.flatMap((output, k) =>
          output.settings.audioOnly ? [] : [{ output, dir: join(outDir, output.spec.key), firstSegment: playlists[k]!.segments[0]! }],
        ),
        jobDir,
        chunk,
      )
      : new Map<string, QualityResult>();
    const results: (Required<RenditionDone> & { segments: Required<SegmentDone>[]; frameCount: number; bytesWritten: number; peakBandwidth: number; averageBandwidth: number; durationSeconds: number })[] = [];
    for (const [k, output] of outputs.entries()) {
      const playlist = playlists[k]!;
      const sizes = new Map<string, number>();
      for (const name of filesByOutput[k]!) sizes.set(name, (await stat(join(outDir, name))).size);
      const segments = playlist.segments.map((s) => ({
        name: s.uri,
        durationSeconds: s.durationSeconds,
        sizeBytes: sizes.get(output.prefix + s.uri) ?? 0,
      }));
      const bandwidth = measureBandwidth(segments);
      const init = parseInitSegment(await readFile(join(outDir, output.prefix + hlsInitName)));
      const quality = scores.get(output.spec.key) ?? notMeasured;
      // ffmpeg's progress counts the frames of its first video output; a rendition at another
      // frame rate (none today: one ladder, one frame rate) is counted from its duration.
      const frames = output.settings.frameRate === outputs[0]!.settings.frameRate
        ? (last?.frame ?? 0)
        : Math.round(bandwidth.durationSeconds * output.settings.frameRate);
      results.push({
        key: output.spec.key,
        segmentCount: playlist.segments.length,
        peakBandwidth: bandwidth.peakBitsPerSecond,
        averageBandwidth: bandwidth.averageBitsPerSecond,
        codecs: init.codecs,
        frameCount: frames,
        width: init.width,
        height: init.height,
        pixelFormat: output.settings.audioOnly ? '' : pixelFormatOfX264[output.settings.pixelFormat],
        audioFormat: output.settings.audio && init.audioCodec ? output.settings.audio.encoding.format : '',
        durationSeconds: bandwidth.durationSeconds,
        bytesWritten: [...sizes.values()].reduce((sum, size) => sum + size, 0),
        segments,
        ...quality,
      });
    }
    onProgress({ percent: 100, encodedSeconds: results[0]!.durationSeconds, speed: last?.speed ?? 0 });
    return { bytesWritten: uploads.bytes, files: filesByOutput.flat(), renditions: results };
  } finally {
    clearInterval(scanner);
    signal.removeEventListener('abort', stopJob);
    job.abort(); // stops uploads still in flight after a failure
    await uploads.drain().catch(() => {});
    await rm(jobDir, { recursive: true, force: true });
  }
}
