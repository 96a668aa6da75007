// The EncodeService of a node: the gRPC wiring of its calls (token check, a place in NodeJobs,
// cancellation, progress, logs, metrics, the failure on the wire), each running one job of
// src/jobs/, and raising a running encode's priority.
import { createHash, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import type { Logger } from 'pino';
import { tokenMetadataKey, type EncodeDone, type EncodeServiceHandlers, type grpc } from '@kino/proto';
import { encodeSourceOf, type EncodeJobOptions } from './encode-options.ts';
import { FfmpegFailedError, InvalidRequestError, UnauthenticatedError, asJobError, toGrpcStatus } from './errors.ts';
import { runAudioTrackJob } from './jobs/audio-track.ts';
import { runChunkJob } from './jobs/chunk.ts';
import { checkProbeRequest, runProbeJob } from './jobs/probe.ts';
import { runStoryboardJob } from './jobs/storyboard.ts';
import { runThumbnailJob } from './jobs/thumbnail.ts';
import { runTranscribeJob, type SpeechEngine } from './jobs/transcribe.ts';
import { runWholeJob } from './jobs/whole.ts';
import { runLiveJob } from './jobs/live.ts';
import type { CallKind, NodeJobs } from './node-jobs.ts';

export interface EncodeServiceOptions {
  /**
   * The shared farm token callers present (a node without a credential, on plaintext). Unset: the
   * node has its own credential, and its calls come inside its TLS connection to the registry.
   */
  token?: string;
  jobs: NodeJobs;
  workDir: string;
  threads: number;
  /** The quality ffmpeg (EncodeNodeOptions.qualityFfmpeg), when the node has one. */
  qualityFfmpeg?: string;
  /** The node's working encoders (capabilities.ts). */
  encoders?: readonly string[];
  /** Its speech engine, when it has one that works (capabilities.ts). */
  speechEngine?: SpeechEngine;
  logger: Logger;
  /** The node's id (assigned by the registry), for log lines. */
  nodeId: () => string;
  /** Counts each job's end by kind and result (the node's metrics). */
  countJob?: (kind: CallKind, result: 'done' | 'failed' | 'refused') => void;
}

export function createEncodeServiceHandlers(options: EncodeServiceOptions): EncodeServiceHandlers {
  const service = new EncodeService(options);
  return {
    Probe(call, callback) {
      service.runUnary('probe', call, callback, ({ signal }) => runProbeJob({ request: call.request, signal }), {
        check: () => checkProbeRequest(call.request),
        doneMessage: 'probed',
      });
    },
    Encode(call) {
      service.runEncode(call);
    },
    RaisePriority(call, callback) {
      service.raisePriority(call, callback);
    },
    Thumbnail(call, callback) {
      service.runUnary('thumbnail', call, callback, (job) => runThumbnailJob({ request: call.request, ...job }));
    },
    Storyboard(call, callback) {
      service.runUnary('storyboard', call, callback, (job) => runStoryboardJob({ request: call.request, ...job }));
    },
    Transcribe(call, callback) {
      service.runUnary('transcribe', call, callback, (job) =>
        runTranscribeJob({
          request: call.request,
          engine: options.speechEngine,
          threads: options.threads,
          ...job,
        }),
      );
    },
  };
}

/** The encode job the request names (its `job`, one of whole, chunk or audio_track), from the source probe it carries. */
export async function runEncodeJob(options: EncodeJobOptions): Promise<EncodeDone> {
  const { request } = options;
  if (!request.inputUrl) throw new InvalidRequestError('input_url is required');
  // A broadcast has no duration yet: its source is checked by its own rule (jobs/live.ts).
  if (request.job === 'live') return runLiveJob(options, request.live!);
  const source = encodeSourceOf(request);
  switch (request.job) {
    case 'whole':
      return runWholeJob(options, source, request.whole!);
    case 'chunk':
      return runChunkJob(options, source, request.chunk!);
    case 'audioTrack':
      return runAudioTrackJob(options, source, request.audioTrack!);
    default:
      throw new InvalidRequestError('the request names no job: one of whole, chunk, audio_track or live');
  }
}

type EncodeCall = Parameters<EncodeServiceHandlers['Encode']>[0];
type RaisePriorityCall = Parameters<EncodeServiceHandlers['RaisePriority']>;

// Progress goes out at most twice a second: enough for a progress bar and an activity heartbeat.
const progressIntervalMs = 500;

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

class EncodeService {
  private readonly expected: Buffer | undefined;
  private readonly countJob: NonNullable<EncodeServiceOptions['countJob']>;
  // Lowering a nice value is a privilege: said once, not on every raise.
  private warnedNiceRefused = false;

  private readonly options: EncodeServiceOptions;
  constructor(options: EncodeServiceOptions) {
    this.options = options;
    this.expected = options.token === undefined ? undefined : digest(options.token);
    this.countJob = options.countJob ?? (() => {});
  }

  private authenticate(call: Pick<grpc.ServerUnaryCall<unknown, unknown>, 'metadata'>): void {
    // A node with a credential takes what comes through its own TLS connection to the registry (the
    // farm CA's certificate, checked at the handshake): nothing else can reach its EncodeService.
    if (!this.expected) return;
    const presented = call.metadata.get(tokenMetadataKey)[0];
    if (typeof presented !== 'string' || !timingSafeEqual(digest(presented), this.expected)) {
      throw new UnauthenticatedError(`missing or wrong ${tokenMetadataKey}`);
    }
  }

  // Failures of the request or of the world (bad source, storage down) are warnings; ffmpeg's own
  // failures and the node's internal errors are errors.
  private logFailure(log: Logger, error: unknown, what: string): void {
    const jobError = asJobError(error);
    if (jobError && !(jobError instanceof FfmpegFailedError)) log.warn({ err: error }, `${what} failed`);
    else log.error({ err: error }, `${what} failed`);
  }

  /**
   * A job answered once (probe, thumbnail, storyboard: no slot; transcribe: a slot), cancelled with
   * its call. `check` refuses a request before the job takes its place.
   */
  runUnary<T>(
    kind: 'probe' | 'thumbnail' | 'storyboard' | 'transcribe',
    call: grpc.ServerUnaryCall<{ jobId: string }, T>,
    callback: grpc.sendUnaryData<T>,
    run: (job: { workDir: string; signal: AbortSignal; logger: Logger }) => Promise<T>,
    { check = () => {}, doneMessage = `${kind} done` }: { check?: () => void; doneMessage?: string } = {},
  ): void {
    const { jobs, logger, nodeId, workDir } = this.options;
    let log = logger.child({ nodeId: nodeId(), jobId: call.request.jobId });
    let job: ReturnType<NodeJobs['start']>;
    try {
      this.authenticate(call);
      check();
      job = jobs.start(kind, call.request.jobId);
      log = log.child({ jobId: job.jobId });
      // With `${kind} done` (or failed), the job's timeline on this node, as `encode started` is an encode's.
      log.info(`${kind} started`);
    } catch (error) {
      log.warn({ err: error }, `${kind} refused`);
      this.countJob(kind, 'refused');
      callback(toGrpcStatus(error));
      return;
    }
    const controller = new AbortController();
    call.on('cancelled', () => controller.abort());
    // Cancelled before the node read it (it hung with the request unread, and the caller gave up):
    // work already moved elsewhere, so none is done here.
    if (call.cancelled) controller.abort();
    run({ workDir, signal: AbortSignal.any([controller.signal, job.abandoned]), logger: log })
      .then((result) => {
        log.info({ [kind]: result }, doneMessage);
        this.countJob(kind, 'done');
        callback(null, result);
      })
      .catch((error: unknown) => {
        this.logFailure(log, error, kind);
        this.countJob(kind, 'failed');
        callback(toGrpcStatus(error));
      })
      .finally(job.finish);
  }

  /** An encode of any kind: a slot, progress events, then one `done` (or the failure). */
  runEncode(call: EncodeCall): void {
    const { jobs, logger, nodeId, workDir, threads, qualityFfmpeg, encoders } = this.options;
    const { request } = call;
    let log = logger.child({
      nodeId: nodeId(),
      jobId: request.jobId,
      videoId: request.videoId,
      job: request.job,
      rendition: (request.whole ?? request.chunk)?.renditions.map((r) => r.key).join(','),
      ...(request.chunk ? { chunk: request.chunk.index } : {}),
    });
    let job: ReturnType<NodeJobs['startEncode']>;
    try {
      this.authenticate(call);
      job = jobs.startEncode(request.jobId, { onDemand: request.onDemand });
      log = log.child({ jobId: job.jobId });
      // When this node's slot went to the job: with `encode done`, the slot's timeline. `job`: whole,
      // chunk or audioTrack (a chunked video's audio track, or an audio.m4a).
      log.info({ job: request.job, onDemand: request.onDemand }, 'encode started');
    } catch (error) {
      log.warn({ err: error }, 'encode refused');
      this.countJob('encode', 'refused');
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
    if (call.cancelled) {
      log.warn('encode cancelled by the caller before the node read it');
      controller.abort();
    }
    let lastSent = 0;
    const started = Date.now();
    runEncodeJob({
      request,
      workDir,
      threads,
      ...(qualityFfmpeg ? { qualityFfmpeg } : {}),
      ...(encoders ? { encoders } : {}),
      priority: job.priority,
      signal: AbortSignal.any([controller.signal, job.abandoned]),
      logger: log,
      onProgress(progress) {
        const now = Date.now();
        if (call.cancelled || (now - lastSent < progressIntervalMs && progress.percent < 100)) return;
        lastSent = now;
        call.write({ progress });
      },
      async sendLive(event) {
        if (call.cancelled) return;
        if (!call.write(event)) await once(call, 'drain', { signal: controller.signal });
      },
    })
      .then((done) => {
        settled = true;
        this.countJob('encode', 'done');
        log.info(
          { done: { ...done, files: done.files?.length }, seconds: (Date.now() - started) / 1000 },
          'encode done',
        );
        if (call.cancelled) return;
        call.write({ done });
        call.end();
      })
      .catch((error: unknown) => {
        settled = true;
        this.countJob('encode', 'failed');
        this.logFailure(log, error, 'encode');
        if (!call.cancelled) call.emit('error', toGrpcStatus(error));
      })
      .finally(job.finish);
  }

  raisePriority(call: RaisePriorityCall[0], callback: RaisePriorityCall[1]): void {
    const log = this.options.logger.child({ nodeId: this.options.nodeId(), jobId: call.request.jobId });
    try {
      this.authenticate(call);
    } catch (error) {
      log.warn({ err: error }, 'raise refused');
      callback(toGrpcStatus(error));
      return;
    }
    try {
      const renice = this.options.jobs.raise(call.request.jobId);
      if (!renice) {
        log.info('raise: no encode of that job runs here');
      } else if (renice.refused) {
        // The encode goes on at background priority: slower for the viewer, but made.
        const message =
          'raise: the system refused to lower the nice value of ffmpeg, so a background encode a viewer waits for stays niced; ' +
          'the node needs CAP_SYS_NICE or RLIMIT_NICE of 20 (compose: `ulimits: { nice: 20 }`)';
        if (this.warnedNiceRefused) log.debug(message);
        else log.warn(message);
        this.warnedNiceRefused = true;
      } else {
        log.info({ threads: renice.threads }, 'encode raised: its ffmpeg runs at nice 0');
      }
      callback(null, { running: renice !== undefined });
    } catch (error) {
      log.warn({ err: error }, 'raise failed');
      callback(toGrpcStatus(error));
    }
  }
}
