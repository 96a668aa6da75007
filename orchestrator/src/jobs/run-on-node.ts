// How a job runs on an encode node, whatever its kind: an encode waits in the encode queue for a
// slot (a lease) and gives it back in `finally`; a probe, a thumbnail or a storyboard (short, no
// slot) just picks a live node. Both heartbeat while the node works, and both end at once when the
// registry stops counting on the node (it stopped heartbeating: hung or dead, marked lost, left): the
// one liveness signal of every job (jobSignals). An Encode call also watches for a stream gone silent
// and for a viewer starting to wait for it.
// Whatever fails comes out classified for the workflow's retry policy (classifyNodeFailure).
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import {
  EncodeStreamEndedError,
  GrpcStatus,
  NodeJobFailure,
  isServiceError,
  redactUrls,
  type AudioTrackEncode,
  type ChunkEncode,
  type EncodeClient,
  type EncodeDone__Output,
  type EncodeRequest,
  type Watermark,
  type WholeEncode,
} from '@kino/proto';
import type { Logger, Storage } from '@kino/infra';
import { encodeQueueWaitMinutes, failureTypes, type EncodeTimings, type SourceProbe } from '../activity-types.ts';
import type { FarmNode, NodeFarm, NodeLease, QueuePlacement } from '../node-farm.ts';
import type { OrchestratorMetrics } from '../metrics.ts';
import { heartbeatIntervalMs, whileHeartbeating } from '../activities/heartbeat.ts';

/**
 * A node lost mid-encode: the next attempt starts at once (it queues for a slot like any encode),
 * because the failure was the node's, not the work's.
 */
const nodeLostRetryDelayMs = 100;
/** A node refusing for lack of a slot (the registry thought it had one): look again soon, no backoff. */
const nodeBusyRetryDelayMs = 1_000;
/** A node that sends nothing (no progress, no end) for this long is treated as lost. */
const stallTimeoutMs = 120_000;
/** The deadline of a probe or a thumbnail: seconds of work. */
export const quickCallTimeoutMs = 120_000;
/** RaisePriority only looks the job up and renices it: a node that takes longer is not answering. */
const raiseTimeoutMs = 10_000;

/** What every node job is made with (createNodeActivities hands them in). */
export interface NodeJobDeps {
  storage: Storage;
  farm: NodeFarm;
  logger: Logger;
  metrics: OrchestratorMetrics;
}

/** The kind of one Encode call, with its own fields (EncodeRequest's `job`). */
export type EncodeJob = { whole: WholeEncode } | { chunk: ChunkEncode } | { audioTrack: AudioTrackEncode };

/** A job on its node, as its work sees it. */
interface JobOnNode {
  node: FarmNode;
  jobId: string;
  log: Logger;
  /** The slot of an encode; undefined for a short job. */
  lease: NodeLease | undefined;
  /**
   * The node call's signal: aborts when the activity is cancelled or the registry stops counting on
   * the node. An aborted call is cancelled on the node too, so its late answer goes nowhere.
   */
  signal: AbortSignal;
}

/** The work of a job on its node. */
type NodeWork<T> = (job: JobOnNode) => Promise<T>;

/**
 * The signals a job's node call ends on: the activity's cancellation, and `nodeGone`, the one
 * liveness signal of every job, whatever its kind: an encode's lease dropped by the registry, or for
 * a job without a slot its node watched (NodeFarm.watchNode). Both come from the registry's sweep
 * (the node silent past its heartbeat timeout is marked gone), so a node that hangs costs every kind
 * of job the same seconds.
 */
function jobSignals(
  farm: NodeFarm,
  node: FarmNode,
  lease: NodeLease | undefined,
): { nodeGone: AbortSignal; signal: AbortSignal; stop(): void } {
  const watch = lease ? { gone: lease.dropped, stop: () => {} } : farm.watchNode(node.nodeId);
  const signal = AbortSignal.any([Context.current().cancellationSignal, watch.gone]);
  return { nodeGone: watch.gone, signal, stop: () => watch.stop() };
}

/**
 * Runs `work` on a node for the current activity, heartbeating throughout: an encode waits in the
 * encode queue for a slot (a lease); a probe, a thumbnail or a storyboard just takes a live node.
 * Failures come out classified for the retry policy; a slot is always given back.
 */
export async function runJobOnNode<T>(
  { farm, logger }: Pick<NodeJobDeps, 'farm' | 'logger'>,
  videoId: string,
  what: string,
  { slot, placement }: { slot: boolean; placement?: QueuePlacement },
  work: NodeWork<T>,
): Promise<T> {
  const context = Context.current();
  const { info } = context;
  const jobId = nodeJobId(videoId, info.activityId, info.workflowExecution?.runId ?? '');
  const lease = slot ? await queueForSlot({ farm, logger }, { videoId, jobId, what, placement }) : undefined;
  const node = slot ? lease : await farm.pickNode();
  if (!node) {
    throw ApplicationFailure.retryable(`no encode node is online for the ${what}`, failureTypes.noNodeAvailable);
  }
  const log = logger.child({ videoId, jobId, nodeId: node.nodeId, attempt: info.attempt });
  log.info({ address: node.address }, `${what} on node`);
  const { nodeGone, signal, stop } = jobSignals(farm, node, lease);
  try {
    // An encode heartbeats with its progress (streamEncode); a short job, while the node works on it,
    // with the node's id: either way a dead orchestrator is noticed at the heartbeat timeout.
    const job = { node, jobId, log, lease, signal };
    return slot
      ? await work(job)
      : await whileHeartbeating(
          () => work(job),
          () => ({ nodeId: node.nodeId, what }),
        );
  } catch (error) {
    const failure =
      nodeGone.aborted && !context.cancellationSignal.aborted ? nodeStalled(nodeGone.reason as Error) : error;
    throw await classifyNodeFailure(failure, {
      farm,
      node,
      what,
      log,
      signal: context.cancellationSignal,
      attempt: info.attempt,
    });
  } finally {
    stop();
    if (lease)
      await farm.release(lease).catch((error: unknown) => log.error({ err: error }, 'could not release the node slot'));
  }
}

/** Waits in the encode queue for a slot, heartbeating; a wait past encodeQueueWaitMinutes is final for this activity. */
async function queueForSlot(
  { farm, logger }: Pick<NodeJobDeps, 'farm' | 'logger'>,
  {
    videoId,
    jobId,
    what,
    placement,
  }: { videoId: string; jobId: string; what: string; placement: QueuePlacement | undefined },
): Promise<NodeLease> {
  const context = Context.current();
  const queuedAt = Date.now();
  let lease: NodeLease | undefined;
  try {
    lease = await whileHeartbeating(
      () =>
        farm.acquire({
          videoId,
          job: jobId,
          signal: context.cancellationSignal,
          maxWaitMs: encodeQueueWaitMinutes * 60_000,
          ...(placement ? { placement } : {}),
        }),
      () => ({ nodeId: '', percent: 0, queued: true }),
    );
  } catch (error) {
    if (context.cancellationSignal.aborted) {
      throw context.cancellationSignal.reason instanceof CancelledFailure
        ? context.cancellationSignal.reason
        : new CancelledFailure(`${what} cancelled while queued`);
    }
    throw error;
  }
  if (!lease) {
    // Final for this activity: the workflow waits for a live node and queues a new one.
    throw ApplicationFailure.nonRetryable(
      `no encode slot came free in ${encodeQueueWaitMinutes} minutes for the ${what}`,
      failureTypes.noNodeAvailable,
    );
  }
  logger.info(
    { videoId, jobId, nodeId: lease.nodeId, attempt: context.info.attempt, queuedMs: Date.now() - queuedAt },
    `${what}: slot granted`,
  );
  return lease;
}

/** What an Encode call is in logs, failures and metrics: its `what`, its kind, the renditions it makes. */
export function describeEncode(job: EncodeJob): {
  what: string;
  kind: 'whole' | 'chunk' | 'audio';
  renditionKeys: string[];
} {
  if ('audioTrack' in job) return { what: 'audio track', kind: 'audio', renditionKeys: ['audio'] };
  const renditionKeys = (('whole' in job ? job.whole.renditions : job.chunk.renditions) ?? []).map((r) => r.key ?? '');
  const keys = renditionKeys.join(', ');
  return 'chunk' in job
    ? { what: `chunk ${job.chunk.index} of ${keys}`, kind: 'chunk', renditionKeys }
    : { what: `encode of ${keys}`, kind: 'whole', renditionKeys };
}

/** The moments of an encode the timings are cut at (Date.now() values). */
interface EncodeMoments {
  /** The activity began (before the probe and the presigning). */
  startedAt: number;
  /** The node was called (a slot held). */
  callStartedAt: number;
  /** The node's first progress; undefined when it sent none. */
  firstEventAt: number | undefined;
  /** ffmpeg reported the whole duration encoded: the rest is the node's final uploads. */
  encodedAllAt: number | undefined;
  /** The node answered done. */
  finishedAt: number;
}

/** Where an encode's time went: preparing, the node starting up, ffmpeg, the node's last uploads. */
export function encodeTimings({
  startedAt,
  callStartedAt,
  firstEventAt,
  encodedAllAt,
  finishedAt,
}: EncodeMoments): EncodeTimings {
  return {
    prepareMs: callStartedAt - startedAt,
    startupMs: (firstEventAt ?? finishedAt) - callStartedAt,
    encodeMs: (encodedAllAt ?? finishedAt) - (firstEventAt ?? finishedAt),
    finishMs: finishedAt - (encodedAllAt ?? finishedAt),
  };
}

/** One Encode call's request parts that are known before it runs. */
interface EncodeCall {
  videoId: string;
  inputUrl: string;
  source: SourceProbe;
  /** The video's watermark, its image presigned; absent: none. */
  watermark?: Watermark;
  /** When the activity began: its timings count from here. */
  startedAt: number;
}

/** The Encode call itself, on a held slot: progress as heartbeats; a stream silent for too long ends it as stalled. */
export async function streamEncode(
  { farm, metrics }: NodeJobDeps,
  { videoId, inputUrl, source, watermark, startedAt }: EncodeCall,
  job: EncodeJob,
  { node, jobId, log, lease, signal }: JobOnNode & { lease: NodeLease },
): Promise<{ done: EncodeDone__Output; node: FarmNode; timings: EncodeTimings }> {
  const context = Context.current();
  // Raised between the grant and now: the node starts it as urgent work.
  const onDemand = lease.urgent || lease.raised.aborted;
  const request: EncodeRequest = {
    jobId,
    videoId,
    inputUrl,
    source,
    ...job,
    onDemand,
    ...(watermark ? { watermark } : {}),
  };
  const client = farm.client(node);
  const callStartedAt = Date.now();
  let firstEventAt: number | undefined;
  let encodedAllAt: number | undefined;
  let lastEventAt = callStartedAt;
  let percent = 0;
  const stalled = new AbortController();
  const beat = () => context.heartbeat({ nodeId: node.nodeId, percent });
  beat();
  const timer = setInterval(() => {
    if (Date.now() - lastEventAt > stallTimeoutMs)
      stalled.abort(new Error(`no word from the node for ${stallTimeoutMs / 1000} s`));
    else beat();
  }, heartbeatIntervalMs);
  const raising = raiseWhenWaitedFor(client, jobId, log, onDemand ? undefined : lease.raised);
  try {
    const done = await client.encode(request, {
      signal: AbortSignal.any([signal, stalled.signal]),
      onProgress(progress) {
        lastEventAt = Date.now();
        firstEventAt ??= lastEventAt;
        raising.nodeSpoke();
        percent = Math.max(0, Math.min(100, progress.percent));
        if (percent >= 99.5) encodedAllAt ??= lastEventAt;
        beat();
      },
    });
    const finishedAt = Date.now();
    const { kind, renditionKeys } = describeEncode(job);
    for (const rendition of renditionKeys)
      metrics.encodeSeconds.observe({ rendition, kind }, (finishedAt - callStartedAt) / 1000);
    const timings = encodeTimings({ startedAt, callStartedAt, firstEventAt, encodedAllAt, finishedAt });
    log.info(
      {
        ...timings,
        ...('chunk' in job ? { chunk: job.chunk.index } : {}),
        renditions: done.renditions.map((r) => ({ key: r.key, segments: r.segmentCount, frames: r.frameCount })),
      },
      'encoded',
    );
    return { done, node, timings };
  } catch (error) {
    if (!context.cancellationSignal.aborted && stalled.signal.aborted)
      throw nodeStalled(stalled.signal.reason as Error);
    throw error;
  } finally {
    clearInterval(timer);
    raising.stop();
  }
}

/**
 * A viewer started waiting for this encode while it runs (`raised` aborts): the node runs its ffmpeg
 * at the priority of urgent work from then on (docs/decisions/just-in-time.md). Asked once; should the
 * node not run the job yet (the raise overtook the call: the node had sent nothing), once more when it
 * has spoken (`nodeSpoke`, at each progress). Undefined `raised`: the encode is urgent already.
 */
function raiseWhenWaitedFor(
  client: EncodeClient,
  jobId: string,
  log: Logger,
  raised: AbortSignal | undefined,
): { nodeSpoke(): void; stop(): void } {
  let hasSpoken = false;
  let resolveSpoken: () => void = () => {};
  const spoken = new Promise<void>((resolve) => (resolveSpoken = resolve));
  const raise = () => {
    const nodeHadSpoken = hasSpoken;
    client
      .raisePriority({ jobId }, { timeoutMs: raiseTimeoutMs })
      .then(({ running }) => {
        if (running) log.info('raised on the node: a viewer waits for it');
        else if (nodeHadSpoken) log.info('not raised: the node does not run it any more');
        else void spoken.then(raise);
      })
      // The encode goes on either way, niced: slower for the viewer, never failed for this.
      .catch((error: unknown) => log.warn({ err: error }, 'could not raise the encode on the node'));
  };
  raised?.addEventListener('abort', raise, { once: true });
  return {
    nodeSpoke() {
      hasSpoken = true;
      resolveSpoken();
    },
    stop() {
      raised?.removeEventListener('abort', raise);
    },
  };
}

/** The node went silent: no word on the stream for too long, or the registry stopped counting on it. */
class NodeStalledError extends Error {}
function nodeStalled(reason: Error): NodeStalledError {
  return new NodeStalledError(reason.message);
}

/** How long to wait before the next attempt when storage was unreachable: outages outlast blips. */
export function storageRetryDelayMs(attempt: number): number {
  return Math.min(5 * 60_000, 15_000 * 2 ** (attempt - 1));
}

/** Where a failure happened, for its classification and its log. */
interface FailedCall {
  farm: NodeFarm;
  node: FarmNode;
  what: string;
  log: Logger;
  signal: AbortSignal;
  attempt: number;
}

/**
 * Turns a failed node call into what the workflow's retry policy acts on. The node's own answer
 * carries a FailureReason (kino.proto), and each reason has its rule (failureOfNodeAnswer).
 * Only a call the node did not answer means the node is lost (connection refused, dropped or reset,
 * deadline, cancelled not by us, the stream ended without `done`, or silence for too long):
 * NodeLost, retried at once (the next attempt queues for a slot on another node), and the node
 * is marked gone with its slots freed until it heartbeats again. A node the registry stopped
 * counting on (jobSignals: it stopped heartbeating) ends the call of any kind the same way.
 * Cancelled by us: the CancelledFailure, so Temporal records a cancellation.
 */
async function classifyNodeFailure(error: unknown, failed: FailedCall): Promise<Error> {
  const { farm, node, what, log, signal } = failed;
  if (signal.aborted) {
    log.info({ reason: String(signal.reason) }, `${what} cancelled`);
    return signal.reason instanceof CancelledFailure ? signal.reason : new CancelledFailure(`${what} cancelled`);
  }
  if (error instanceof ApplicationFailure) return error;
  if (error instanceof NodeJobFailure) {
    const failure = failureOfNodeAnswer(error, failed);
    if (failure) return failure;
  }
  const nodeLost = async (detail: string) => {
    log.warn({ detail }, `node lost during the ${what}`);
    await farm.markLost(node.nodeId).catch((e: unknown) => log.error({ err: e }, 'could not mark the node lost'));
    return ApplicationFailure.create({
      message: `node ${node.nodeId} lost during the ${what}: ${detail}`,
      type: failureTypes.nodeLost,
      nextRetryDelay: nodeLostRetryDelayMs,
    });
  };
  if (error instanceof NodeStalledError || error instanceof EncodeStreamEndedError) return nodeLost(error.message);
  if (isServiceError(error)) {
    // No JobFailure came back: the node did not answer. grpc-js reports a refused, dropped or reset
    // connection as UNAVAILABLE or INTERNAL (RST_STREAM), a vanished peer as CANCELLED or
    // DEADLINE_EXCEEDED.
    const detail = redactUrls(error.details || error.message);
    switch (error.code) {
      case GrpcStatus.UNAVAILABLE:
      case GrpcStatus.INTERNAL:
      case GrpcStatus.UNKNOWN:
      case GrpcStatus.CANCELLED:
      case GrpcStatus.DEADLINE_EXCEEDED:
        return nodeLost(`${GrpcStatus[error.code]}: ${detail}`);
      default:
        // Something answered, but not a node of this protocol.
        log.warn({ code: GrpcStatus[error.code], detail }, `${what}: unexpected answer from the node`);
        return ApplicationFailure.retryable(
          `${what} failed on node ${node.nodeId}: ${GrpcStatus[error.code]}: ${detail}`,
          failureTypes.nodeWorkFailed,
        );
    }
  }
  log.warn({ err: error }, `${what} failed`);
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The rule of each FailureReason a node answers with:
 * - INVALID_SOURCE, SOURCE_NOT_FOUND: InvalidSource, final (the video fails);
 * - INVALID_REQUEST, TIMESTAMP_OUT_OF_RANGE: InvalidRequest, final (another attempt asks the same);
 * - NODE_BUSY: NoNodeAvailable, retried after a second (the registry and the node disagreed on a slot);
 * - STORAGE_UNAVAILABLE: StorageUnavailable, retryable after a longer delay; the node is fine;
 * - URL_REFUSED: UrlRefused, retryable (the next attempt presigns fresh URLs);
 * - FFMPEG_FAILED and the rest: NodeWorkFailed, retryable within the policy's attempts.
 * A reason this orchestrator does not know (a newer node's): undefined, and the failure is classified
 * as any other error.
 */
function failureOfNodeAnswer(
  error: NodeJobFailure,
  { node, what, log, attempt }: FailedCall,
): ApplicationFailure | undefined {
  const detail = redactUrls(error.details);
  log.warn({ reason: error.reason, detail }, `${what} failed on the node`);
  switch (error.reason) {
    case 'INVALID_SOURCE':
      return ApplicationFailure.nonRetryable(detail, failureTypes.invalidSource);
    case 'SOURCE_NOT_FOUND':
      return ApplicationFailure.nonRetryable(`the uploaded file is gone: ${detail}`, failureTypes.invalidSource);
    case 'INVALID_REQUEST':
    case 'TIMESTAMP_OUT_OF_RANGE':
      return ApplicationFailure.nonRetryable(
        `node ${node.nodeId} refused the ${what}: ${detail}`,
        failureTypes.invalidRequest,
      );
    case 'NODE_BUSY':
      return ApplicationFailure.create({
        message: `node ${node.nodeId} is busy: ${detail}`,
        type: failureTypes.noNodeAvailable,
        nextRetryDelay: nodeBusyRetryDelayMs,
      });
    case 'STORAGE_UNAVAILABLE':
      return ApplicationFailure.create({
        message: `${what} on node ${node.nodeId}: storage unavailable: ${detail}`,
        type: failureTypes.storageUnavailable,
        nextRetryDelay: storageRetryDelayMs(attempt),
      });
    case 'URL_REFUSED':
      return ApplicationFailure.retryable(
        `${what} on node ${node.nodeId}: storage refused a URL: ${detail}`,
        failureTypes.urlRefused,
      );
    case 'FFMPEG_FAILED':
    case 'CANCELLED': // by the node, not by us (checked in classifyNodeFailure)
    case 'UNAUTHENTICATED':
    case 'INTERNAL':
    case 'FAILURE_REASON_UNSPECIFIED':
      return ApplicationFailure.retryable(
        `${what} failed on node ${node.nodeId}: ${detail}`,
        failureTypes.nodeWorkFailed,
      );
  }
  return undefined;
}

/**
 * The id of the node job an activity runs: one per activity (not per attempt), so the node reports
 * it in heartbeats and a retry drops the lease an attempt of a dead worker left behind. Safe as a
 * file name (nodes name job directories after it): `vid_…-a12-8e5c0a7d41f3`. The run id's last
 * twelve hex digits, its random ones: Temporal's run ids are UUIDv7, whose first eight are the
 * time and are shared by runs started within a minute of each other, so two workflows of one video
 * (a track's run and its sound separation) gave their fourth activities one id, and a retry of one
 * dropped the other's place in the encode queue, which then never ran.
 */
export function nodeJobId(videoId: string, activityId: string, workflowRunId: string): string {
  return `${videoId}-a${activityId}-${workflowRunId.replace(/-/g, '').slice(-12)}`.replace(/[^A-Za-z0-9_-]/g, '_');
}
