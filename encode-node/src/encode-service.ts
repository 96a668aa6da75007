// The EncodeService of a node: token check, slots, the four jobs (probe, encode, thumbnail,
// storyboard), and raising a running encode's priority.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import {
  tokenMetadataKey,
  type EncodeServiceHandlers,
  type ProbeResult,
  type grpc,
} from '@kino/proto';
import { probeMedia, type ProcessPriority } from '@kino/ffmpeg';
import { runEncodeJob } from './encode-job.ts';
import { runStoryboardJob } from './storyboard-job.ts';
import { runThumbnailJob } from './thumbnail-job.ts';
import { FfmpegFailedError, InvalidRequestError, UnauthenticatedError, asJobError, toGrpcStatus } from './errors.ts';
import type { CallKind, NodeJobs } from './node-jobs.ts';

export interface EncodeServiceOptions {
  token: string;
  jobs: NodeJobs;
  workDir: string;
  threads: number;
  /** The quality ffmpeg (EncodeNodeOptions.qualityFfmpeg), when the node has one. */
  qualityFfmpeg?: string;
  logger: Logger;
  /** The node's id (assigned by the registry), for log lines. */
  nodeId: () => string;
  /** Counts each job's end by kind and result (the node's metrics). */
  countJob?: (kind: CallKind, result: 'done' | 'failed' | 'refused') => void;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

// Progress goes out at most twice a second: enough for a progress bar and an activity heartbeat.
const progressIntervalMs = 500;

export function createEncodeServiceHandlers({ token, jobs, workDir, threads, qualityFfmpeg, logger, nodeId, countJob = () => {} }: EncodeServiceOptions): EncodeServiceHandlers {
  const expected = digest(token);
  const authenticate = (metadata: grpc.Metadata) => {
    const presented = metadata.get(tokenMetadataKey)[0];
    if (typeof presented !== 'string' || !timingSafeEqual(digest(presented), expected)) {
      throw new UnauthenticatedError(`missing or wrong ${tokenMetadataKey}`);
    }
  };
  // Lowering a nice value is a privilege: said once, not on every raise.
  let warnedNiceRefused = false;
  // Failures of the request or of the world (bad source, storage down) are warnings; ffmpeg's own
  // failures and the node's internal errors are errors.
  const logFailure = (log: Logger, error: unknown, what: string) => {
    const jobError = asJobError(error);
    if (jobError && !(jobError instanceof FfmpegFailedError)) log.warn({ err: error }, `${what} failed`);
    else log.error({ err: error }, `${what} failed`);
  };

  /** A short job answered once (thumbnail, storyboard): no slot, cancelled with its call. */
  function runUnaryJob<T>(
    kind: 'thumbnail' | 'storyboard',
    call: grpc.ServerUnaryCall<{ jobId: string }, T>,
    callback: grpc.sendUnaryData<T>,
    run: (options: { workDir: string; signal: AbortSignal; logger: Logger }) => Promise<T>,
  ): void {
    let log = logger.child({ nodeId: nodeId(), jobId: call.request.jobId });
    let finish = () => {};
    try {
      authenticate(call.metadata);
      const job = jobs.start(kind, call.request.jobId);
      finish = job.finish;
      log = log.child({ jobId: job.jobId });
    } catch (error) {
      log.warn({ err: error }, `${kind} refused`);
      countJob(kind, 'refused');
      callback(toGrpcStatus(error));
      return;
    }
    const controller = new AbortController();
    call.on('cancelled', () => controller.abort());
    run({ workDir, signal: controller.signal, logger: log })
      .then((result) => {
        log.info({ [kind]: result }, `${kind} done`);
        countJob(kind, 'done');
        callback(null, result);
      })
      .catch((error: unknown) => {
        logFailure(log, error, kind);
        countJob(kind, 'failed');
        callback(toGrpcStatus(error));
      })
      .finally(finish);
  }

  return {
    Probe(call, callback) {
      let finish = () => {};
      let log = logger.child({ nodeId: nodeId(), jobId: call.request.jobId });
      try {
        authenticate(call.metadata);
        if (!call.request.inputUrl) throw new InvalidRequestError('input_url is required');
        const job = jobs.start('probe', call.request.jobId);
        finish = job.finish;
        log = log.child({ jobId: job.jobId });
      } catch (error) {
        log.warn({ err: error }, 'probe refused');
        countJob('probe', 'refused');
        callback(toGrpcStatus(error));
        return;
      }
      const controller = new AbortController();
      call.on('cancelled', () => controller.abort());
      probeMedia(call.request.inputUrl, { signal: controller.signal })
        .then((info) => {
          const result: ProbeResult = {
            durationSeconds: info.durationSeconds,
            width: info.width,
            height: info.height,
            frameRate: info.frameRate,
            frameCount: info.frameCount,
            videoCodec: info.videoCodec,
            pixelFormat: info.pixelFormat,
            hasAudio: info.hasAudio,
            audioCodec: info.audioCodec,
            audioChannels: info.audioChannels,
            audioSampleRate: info.audioSampleRate,
            formatName: info.formatName,
            sizeBytes: info.sizeBytes,
            videoDurationSeconds: info.videoDurationSeconds,
          };
          log.info({ probe: result }, 'probed');
          countJob('probe', 'done');
          callback(null, result);
        })
        .catch((error: unknown) => {
          logFailure(log, error, 'probe');
          countJob('probe', 'failed');
          callback(toGrpcStatus(error));
        })
        .finally(finish);
    },

    Encode(call) {
      const { request } = call;
      let log = logger.child({
        nodeId: nodeId(),
        jobId: request.jobId,
        videoId: request.videoId,
        job: request.job,
        rendition: (request.whole ?? request.chunk)?.renditions.map((r) => r.key).join(','),
        ...(request.chunk ? { chunk: request.chunk.index } : {}),
      });
      let finish = () => {};
      let priority: ProcessPriority | undefined;
      try {
        authenticate(call.metadata);
        const job = jobs.startEncode(request.jobId, { onDemand: request.onDemand });
        priority = job.priority;
        finish = job.finish;
        log = log.child({ jobId: job.jobId });
        // When this node's slot went to the job: with `encode done`, the slot's timeline. `job`: whole,
        // chunk or audioTrack (a chunked video's audio track, or an audio.m4a).
        log.info({ job: request.job, onDemand: request.onDemand }, 'encode started');
      } catch (error) {
        log.warn({ err: error }, 'encode refused');
        countJob('encode', 'refused');
        call.emit('error', toGrpcStatus(error));
        return;
      }
      const controller = new AbortController();
      let settled = false;
      // grpc-js also reports a stream closed after our own end() as cancelled: only a live job aborts.
      call.on('cancelled', () => {
        if (settled) return;
        log.warn('encode cancelled by the caller');
        controller.abort();
      });
      let lastSent = 0;
      const started = Date.now();
      runEncodeJob({
        request,
        workDir,
        threads,
        ...(qualityFfmpeg ? { qualityFfmpeg } : {}),
        priority: priority!,
        signal: controller.signal,
        logger: log,
        onProgress(progress) {
          const now = Date.now();
          if (call.cancelled || (now - lastSent < progressIntervalMs && progress.percent < 100)) return;
          lastSent = now;
          call.write({ progress });
        },
      })
        .then((done) => {
          settled = true;
          countJob('encode', 'done');
          log.info({ done: { ...done, files: done.files?.length }, seconds: (Date.now() - started) / 1000 }, 'encode done');
          if (call.cancelled) return;
          call.write({ done });
          call.end();
        })
        .catch((error: unknown) => {
          settled = true;
          countJob('encode', 'failed');
          logFailure(log, error, 'encode');
          if (!call.cancelled) call.emit('error', toGrpcStatus(error));
        })
        .finally(finish);
    },

    RaisePriority(call, callback) {
      const log = logger.child({ nodeId: nodeId(), jobId: call.request.jobId });
      try {
        authenticate(call.metadata);
      } catch (error) {
        log.warn({ err: error }, 'raise refused');
        callback(toGrpcStatus(error));
        return;
      }
      try {
        const renice = jobs.raise(call.request.jobId);
        if (!renice) {
          log.info('raise: no encode of that job runs here');
        } else if (renice.refused) {
          // The encode goes on at background priority: slower for the viewer, but made.
          const message = 'raise: the system refused to lower the nice value of ffmpeg, so a background encode a viewer waits for stays niced; '
            + 'the node needs CAP_SYS_NICE or RLIMIT_NICE of 20 (compose: `ulimits: { nice: 20 }`)';
          if (warnedNiceRefused) log.debug(message);
          else log.warn(message);
          warnedNiceRefused = true;
        } else {
          log.info({ threads: renice.threads }, 'encode raised: its ffmpeg runs at nice 0');
        }
        callback(null, { running: renice !== undefined });
      } catch (error) {
        log.warn({ err: error }, 'raise failed');
        callback(toGrpcStatus(error));
      }
    },

    Thumbnail(call, callback) {
      runUnaryJob('thumbnail', call, callback, (options) => runThumbnailJob({ request: call.request, ...options }));
    },

    Storyboard(call, callback) {
      runUnaryJob('storyboard', call, callback, (options) => runStoryboardJob({ request: call.request, ...options }));
    },
  };
}
