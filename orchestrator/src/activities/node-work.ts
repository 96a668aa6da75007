// Activities that run on an encode node: probe, encode (one or more renditions from one decode of
// the source), thumbnail, storyboard. An encode takes a slot on a live node and gives it back in `finally`; a
// probe, a thumbnail or a storyboard (short, no slot) just picks a live node. Each hands the node presigned URLs
// for exactly the objects of its job, never the bucket's credentials. The orchestrator itself never
// runs ffmpeg.
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import {
  EncodeStreamEndedError,
  GrpcStatus,
  NodeJobFailure,
  isServiceError,
  redactUrls,
  type AudioTrackEncode,
  type ChunkEncode,
  type EncodeDone__Output,
  type EncodeRequest,
  type WholeEncode,
  type RenditionDone__Output,
  type RenditionSpec,
} from '@kino/proto';
import { type Logger } from '@kino/infra';
import {
  audioDownloadContentType,
  hlsContentTypes,
  hlsInitName,
  hlsPlaylistName,
  hlsSegmentName,
  isAacAudioCodec,
  objectKeys,
  planStoryboard,
  storyboardContentTypes,
  storyboardSheetName,
  storyboardVttName,
  workContentTypes,
} from '@kino/proto/contract';
import { createHash } from 'node:crypto';
import {
  encodeQueueWaitMinutes,
  failureTypes,
  type AudioDownloadInput,
  type EncodeAudioTrackInput,
  type EncodeChunkInput,
  type EncodeGrouping,
  type EncodeInput,
  type FinishedChunks,
  type EncodeOutcome,
  type EncodeRenditionInput,
  type RecordedProbe,
  type SourceProbe,
} from '../activity-types.ts';
import type { FarmNode, NodeFarm, NodeLease, QueuePlacement } from '../node-farm.ts';
import type { RenditionPlan } from '../ladder.ts';
import type { ActivityDeps } from './index.ts';
import { defaultChunkSeconds } from '../chunks.ts';
import { createOrchestratorMetrics } from '../metrics.ts';
import { segmentBitsPerSecond } from '../master-playlist.ts';
import { heartbeatIntervalMs, whileHeartbeating } from './heartbeat.ts';

/**
 * A node lost mid-encode: the next attempt starts at once (it queues for a slot like any encode),
 * because the failure was the node's, not the work's.
 */
const nodeLostRetryDelayMs = 100;
/** A node refusing for lack of a slot (the registry thought it had one): look again soon, no backoff. */
const nodeBusyRetryDelayMs = 1_000;
/** A node that sends nothing (no progress, no end) for this long is treated as lost. */
const stallTimeoutMs = 120_000;
const quickCallTimeoutMs = 120_000;
/** RaisePriority only looks the job up and renices it: a node that takes longer is not answering. */
const raiseTimeoutMs = 10_000;
/** A storyboard decodes the whole source (no encode): minutes for a long one. */
const storyboardCallTimeoutMs = 14 * 60_000;
/** Presigned URLs live at least this long (seconds), longer when the attempt may run longer. */
const minimumUrlLifetimeSeconds = 2 * 60 * 60;
const maximumUrlLifetimeSeconds = 7 * 24 * 60 * 60; // SigV4's limit
/** Segment URLs beyond ceil(duration / segment length), for a container duration that undersells. */
const extraSegmentUrls = 2;

export const defaultThumbnailName = 'default.jpg';

/** The kind of one Encode call, with its own fields (EncodeRequest's `job`). */
type EncodeJob = { whole: WholeEncode } | { chunk: ChunkEncode } | { audioTrack: AudioTrackEncode };

/**
 * The wire form of a rendition the ladder planned: the one mapping to RenditionSpec. Every value is
 * sent as planned (the node applies no defaults of its own).
 */
export function renditionSpecOf(rendition: RenditionPlan): RenditionSpec {
  return {
    key: rendition.key,
    width: rendition.width,
    height: rendition.height,
    videoBitrateKbps: rendition.videoBitrateKbps,
    audioBitrateKbps: rendition.audioBitrateKbps,
    frameRate: rendition.frameRate,
    pixelFormat: rendition.pixelFormat,
    rateControlMode: rendition.rateControlMode,
    twoPass: rendition.twoPass,
    x264Preset: rendition.x264Preset,
    audioCodec: rendition.audioCodec,
    segmentSeconds: rendition.segmentSeconds,
    videoCodec: rendition.videoCodec ?? 'h264',
    minQuantizer: rendition.minQuantizer ?? 0,
  };
}

/** The audio setting a track is encoded with, in its object's name: `aac-128`. */
function audioSetting(rendition: Pick<RenditionPlan, 'audioCodec' | 'audioBitrateKbps'>): string {
  return `${rendition.audioCodec}-${rendition.audioBitrateKbps}`;
}

/** Where `audio.m4a` is made from, and whether it is a copy (see makeAudioDownload). */
export function audioDownloadSource({ storagePath, rendition, probe, audioTrackKey }: Omit<AudioDownloadInput, 'videoId'>): {
  input: string;
  encoding: Omit<AudioTrackEncode, 'outputUrl'>;
} {
  const aacRendition = isAacAudioCodec(rendition.audioCodec);
  if (probe.audioCodec === 'aac') return { input: storagePath, encoding: { copy: true } };
  if (audioTrackKey && aacRendition) return { input: audioTrackKey, encoding: { copy: true } };
  return {
    input: storagePath,
    encoding: aacRendition && rendition.audioBitrateKbps > 0
      ? { audioCodec: rendition.audioCodec, audioBitrateKbps: rendition.audioBitrateKbps }
      : { audioCodec: 'aac', audioBitrateKbps: 128 },
  };
}

export function createNodeActivities({
  storage,
  farm,
  logger,
  encodeGrouping = 'auto',
  chunkSeconds = defaultChunkSeconds,
  metrics = createOrchestratorMetrics(),
}: Pick<ActivityDeps, 'storage' | 'farm' | 'logger' | 'encodeGrouping' | 'chunkSeconds' | 'metrics'>) {
  /**
   * Runs `work` on a node for the current activity, heartbeating throughout: an encode waits in the
   * encode queue for a slot (a lease); a probe, a thumbnail or a storyboard just takes a live node.
   * Failures come out classified for the retry policy; a slot is always given back.
   */
  async function runJobOnNode<T>(
    videoId: string,
    what: string,
    { slot, placement }: { slot: boolean; placement?: QueuePlacement },
    work: (node: FarmNode, jobId: string, log: Logger, lease: NodeLease | undefined) => Promise<T>,
  ): Promise<T> {
    const context = Context.current();
    const { info } = context;
    const jobId = nodeJobId(videoId, info.activityId, info.workflowExecution?.runId ?? '');
    let lease: NodeLease | undefined;
    if (slot) {
      const queuedAt = Date.now();
      try {
        lease = await whileHeartbeating(
          () => farm.acquire({ videoId, job: jobId, signal: context.cancellationSignal, maxWaitMs: encodeQueueWaitMinutes * 60_000, ...(placement ? { placement } : {}) }),
          () => ({ nodeId: '', percent: 0, queued: true }),
        );
      } catch (error) {
        if (context.cancellationSignal.aborted) {
          throw context.cancellationSignal.reason instanceof CancelledFailure ? context.cancellationSignal.reason : new CancelledFailure(`${what} cancelled while queued`);
        }
        throw error;
      }
      if (!lease) {
        // Final for this activity: the workflow waits for a live node and queues a new one.
        throw ApplicationFailure.nonRetryable(`no encode slot came free in ${encodeQueueWaitMinutes} minutes for the ${what}`, failureTypes.noNodeAvailable);
      }
      logger.info({ videoId, jobId, nodeId: lease.nodeId, attempt: info.attempt, queuedMs: Date.now() - queuedAt }, `${what}: slot granted`);
    }
    const node = slot ? lease : await farm.pickNode();
    if (!node) {
      throw ApplicationFailure.retryable(`no encode node is online for the ${what}`, failureTypes.noNodeAvailable);
    }
    const log = logger.child({ videoId, jobId, nodeId: node.nodeId, attempt: info.attempt });
    log.info({ address: node.address }, `${what} on node`);
    try {
      // An encode heartbeats with its progress (callEncode); a short job, while the node works on it,
      // with the node's id: either way a dead orchestrator is noticed at the heartbeat timeout.
      return slot ? await work(node, jobId, log, lease) : await whileHeartbeating(() => work(node, jobId, log, lease), () => ({ nodeId: node.nodeId, what }));
    } catch (error) {
      throw await classifyNodeFailure(error, { farm, node, what, log, signal: context.cancellationSignal, attempt: info.attempt });
    } finally {
      if (lease) await farm.release(lease).catch((error: unknown) => log.error({ err: error }, 'could not release the node slot'));
    }
  }

  /** ffprobe of the uploaded original, on a node. An empty, missing, unreadable or picture-less file fails for good. */
  async function probeSource(videoId: string, storagePath: string): Promise<SourceProbe> {
    // Storage calls heartbeat as the node call does: the proxy's heartbeat timeout covers the whole attempt.
    const object = await whileHeartbeating(() => storage.head(storagePath), () => ({ what: 'probe' }));
    if (!object) throw invalidSource(`the uploaded file was not found at ${storagePath}`);
    if (object.size === 0) throw invalidSource('the uploaded file is empty (0 bytes)');
    const inputUrl = await storage.presignGet(storagePath, urlLifetimeSeconds());

    const result = await runJobOnNode(videoId, 'probe', { slot: false }, (node, jobId) =>
      farm.client(node.address).probe({ jobId, inputUrl }, { signal: Context.current().cancellationSignal, timeoutMs: quickCallTimeoutMs }),
    );
    // No picture is an audio-only video when there is sound; neither is not a video at all.
    if (!(result.width > 0 && result.height > 0) && !result.hasAudio) throw invalidSource('the file has neither a video nor an audio stream');
    if (!(result.durationSeconds > 0)) throw invalidSource('the video has no duration (no decodable frames)');
    return {
      ...result,
      // A node of an earlier version does not say (0): the container's duration, as it used then.
      videoDurationSeconds: result.videoDurationSeconds || result.durationSeconds,
      frameCount: Number(result.frameCount),
      sizeBytes: Number(result.sizeBytes) || object.size,
    };
  }

  function urlLifetimeSeconds(): number {
    const attemptSeconds = Math.ceil(Context.current().info.startToCloseTimeoutMs / 1000) + 600;
    return Math.min(maximumUrlLifetimeSeconds, Math.max(minimumUrlLifetimeSeconds, attemptSeconds));
  }

  /**
   * Presigned PUTs for the outputs of `renditions` (`<key>/<file>`): a whole encode's playlist, init
   * segment and segments, or a chunk's segments (its init segment too for the first chunk; a few
   * spare segment URLs only for the last, as the next chunk owns the names after a chunk's). Each
   * URL is bound to its object's Content-Type (the node uploads with these): storage refuses
   * anything else, so objects always carry the type delivery serves them with.
   */
  async function presignOutputs(
    videoId: string,
    renditions: RenditionPlan[],
    durationSeconds: number,
    window: { chunk: EncodeChunkInput['chunk']; last: boolean } | undefined,
    lifetime: number,
  ): Promise<Record<string, string>> {
    const outputUrls: Record<string, string> = {};
    for (const rendition of renditions) {
      const prefix = `${rendition.key}/`;
      const first = window ? window.chunk.firstSegment : 0;
      const count = window
        ? window.chunk.segmentCount + (window.last ? extraSegmentUrls : 0)
        : Math.ceil(durationSeconds / rendition.segmentSeconds) + extraSegmentUrls;
      if (!window) {
        outputUrls[prefix + hlsPlaylistName] = await storage.presignPut(objectKeys.renditionPlaylist(videoId, rendition.key), lifetime, hlsContentTypes.playlist);
      }
      if (!window || window.chunk.index === 0) {
        outputUrls[prefix + hlsInitName] = await storage.presignPut(objectKeys.renditionInit(videoId, rendition.key), lifetime, hlsContentTypes.init);
      }
      for (let index = first; index < first + count; index += 1) {
        outputUrls[prefix + hlsSegmentName(index)] = await storage.presignPut(
          objectKeys.segment(videoId, rendition.key, index),
          lifetime,
          hlsContentTypes.segment,
        );
      }
    }
    return outputUrls;
  }

  /**
   * One encode on one node: presigns every output of `renditions` (`<key>/<file>`), takes a slot,
   * calls Encode on the node and heartbeats while it streams. Outcomes in `renditions` order.
   */
  async function encode(input: EncodeInput): Promise<EncodeOutcome[]> {
    const outputUrls = await presignOutputs(input.videoId, input.renditions, input.durationSeconds, undefined, urlLifetimeSeconds());
    const { done, node, timings } = await callEncode(input, {
      whole: { renditions: input.renditions.map(renditionSpecOf), outputUrls, measureQuality: input.measureQuality ?? false },
    });
    return outcomesOf(input.renditions, done, node, timings);
  }

  /** The node's measurements of each rendition, in `renditions` order. */
  function outcomesOf(renditions: RenditionPlan[], done: EncodeDone__Output, node: FarmNode, timings: EncodeOutcome['timings']): EncodeOutcome[] {
    return renditions.map((rendition): EncodeOutcome => {
      const result: RenditionDone__Output | undefined = done.renditions.find((r) => r.key === rendition.key);
      if (!result) throw new Error(`the node reported no result for rendition ${rendition.key}`);
      return {
        key: rendition.key,
        width: result.width || rendition.width,
        height: result.height || rendition.height,
        codecs: result.codecs,
        bandwidth: Number(result.peakBandwidth) || estimatedBandwidth(rendition),
        averageBandwidth: Number(result.averageBandwidth) || estimatedBandwidth(rendition),
        segmentCount: result.segmentCount,
        frameCount: Number(result.frameCount),
        bytesWritten: Number(result.bytesWritten),
        nodeId: node.nodeId,
        timings,
        ...(result.segments.length > 0
          ? { segments: result.segments.map((s) => ({ name: s.name, durationSeconds: s.durationSeconds, sizeBytes: Number(s.sizeBytes) })) }
          : {}),
        ...(Number(result.qualityFrames) > 0 ? { quality: { vmaf: result.vmaf, psnr: result.psnr, frames: Number(result.qualityFrames) } } : {}),
      };
    });
  }

  /**
   * The source's probe for an encode: the one the workflow sends. An activity scheduled by a
   * workflow started before the probe travelled (none, or one without the video stream's duration)
   * probes the source once here.
   */
  async function sourceOf({ videoId, storagePath, probe }: { videoId: string; storagePath: string; probe?: RecordedProbe }): Promise<SourceProbe> {
    if (probe?.videoDurationSeconds !== undefined && probe.audioChannels !== undefined && probe.audioSampleRate !== undefined) return probe as SourceProbe;
    return probeSource(videoId, storagePath);
  }

  /**
   * Takes a slot, calls Encode on the node with the source's probe and `job`, and heartbeats while
   * it streams; answers the node's `done`, the node, and where the time went.
   */
  async function callEncode(
    input: Pick<EncodeInput, 'videoId' | 'storagePath' | 'probe'>,
    job: EncodeJob,
    placement?: QueuePlacement,
  ): Promise<{ done: EncodeDone__Output; node: FarmNode; timings: EncodeOutcome['timings'] }> {
    const { videoId, storagePath } = input;
    const context = Context.current();
    const startedAt = Date.now();
    const source = await sourceOf(input);
    const lifetime = urlLifetimeSeconds();
    const inputUrl = await storage.presignGet(storagePath, lifetime);
    const renditions = 'whole' in job ? job.whole.renditions ?? [] : 'chunk' in job ? job.chunk.renditions ?? [] : [];
    const keys = renditions.map((r) => r.key).join(', ');
    const what = 'audioTrack' in job ? 'audio track' : 'chunk' in job ? `chunk ${job.chunk.index} of ${keys}` : `encode of ${keys}`;

    return runJobOnNode(videoId, what, { slot: true, ...(placement ? { placement } : {}) }, async (node, jobId, log, lease) => {
      // Raised between the grant and now: the node starts it as urgent work.
      const onDemand = lease !== undefined && (lease.urgent || lease.raised.aborted);
      const request: EncodeRequest = { jobId, videoId, inputUrl, source, ...job, onDemand };
      const client = farm.client(node.address);
      const callStartedAt = Date.now();
      let firstEventAt: number | undefined;
      // When ffmpeg reported the whole duration encoded: the rest is the node's final uploads.
      let encodedAllAt: number | undefined;
      let lastEventAt = callStartedAt;
      let percent = 0;
      const stalled = new AbortController();
      const beat = () => context.heartbeat({ nodeId: node.nodeId, percent });
      beat();
      const timer = setInterval(() => {
        if (Date.now() - lastEventAt > stallTimeoutMs) stalled.abort(new Error(`no word from the node for ${stallTimeoutMs / 1000} s`));
        else beat();
      }, heartbeatIntervalMs);
      // A viewer started waiting for this encode while it runs: the node runs its ffmpeg at the
      // priority of urgent work from then on (docs/decisions/just-in-time.md). Asked once; should the
      // node not run the job yet (the raise overtook the call: the node had sent nothing), once more
      // when it has spoken.
      let nodeSpoke: () => void = () => {};
      const spoken = new Promise<void>((resolve) => (nodeSpoke = resolve));
      const raise = () => {
        const nodeHadSpoken = firstEventAt !== undefined;
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
      const watchRaise = lease && !onDemand ? lease.raised : undefined;
      watchRaise?.addEventListener('abort', raise, { once: true });
      try {
        const done = await client.encode(request, {
          // A lease the registry dropped (the node stopped heartbeating, or another call found it
          // lost) ends the call at once: the node is not coming back for this encode.
          signal: AbortSignal.any([context.cancellationSignal, stalled.signal, ...(lease ? [lease.dropped] : [])]),
          onProgress(progress) {
            lastEventAt = Date.now();
            firstEventAt ??= lastEventAt;
            nodeSpoke();
            percent = Math.max(0, Math.min(100, progress.percent));
            if (percent >= 99.5) encodedAllAt ??= lastEventAt;
            beat();
          },
        });
        const finishedAt = Date.now();
        const kind = 'audioTrack' in job ? 'audio' : 'chunk' in job ? 'chunk' : 'whole';
        for (const rendition of 'audioTrack' in job ? [{ key: 'audio' }] : renditions) {
          metrics.encodeSeconds.observe({ rendition: rendition.key, kind }, (finishedAt - callStartedAt) / 1000);
        }
        const timings = {
          prepareMs: callStartedAt - startedAt,
          startupMs: (firstEventAt ?? finishedAt) - callStartedAt,
          encodeMs: (encodedAllAt ?? finishedAt) - (firstEventAt ?? finishedAt),
          finishMs: finishedAt - (encodedAllAt ?? finishedAt),
        };
        log.info(
          { ...timings, ...('chunk' in job ? { chunk: job.chunk.index } : {}), renditions: done.renditions.map((r) => ({ key: r.key, segments: r.segmentCount, frames: r.frameCount })) },
          'encoded',
        );
        return { done, node, timings };
      } catch (error) {
        if (!context.cancellationSignal.aborted) {
          if (stalled.signal.aborted) throw nodeStalled(stalled.signal.reason as Error);
          if (lease?.dropped.aborted) throw nodeStalled(lease.dropped.reason as Error);
        }
        throw error;
      } finally {
        clearInterval(timer);
        watchRaise?.removeEventListener('abort', raise);
      }
    });
  }

  return {
    /**
     * Fails with NoNodeAvailable (retried by the workflow's policy without limit) until a live node
     * is there, with a free encode slot when `freeSlot` (workflows started before the encode queue
     * ask for a slot; newer ones queue inside the encode and come here only after a long wait).
     */
    async waitForNodeCapacity({ freeSlot }: { freeSlot: boolean }): Promise<void> {
      if (!(await farm.hasLiveNode({ freeSlot }))) {
        throw ApplicationFailure.retryable(
          freeSlot ? 'waiting for an encode node with a free slot' : 'waiting for an encode node to come online',
          failureTypes.noNodeAvailable,
        );
      }
    },

    /** The workflow's one probe of the source (probeSource above). */
    async probeSource({ videoId, storagePath }: { videoId: string; storagePath: string }): Promise<SourceProbe> {
      return probeSource(videoId, storagePath);
    },

    /** How the workflow groups renditions into encodes (ENCODE_GROUPING); read once per video. */
    async encodeGrouping(): Promise<EncodeGrouping> {
      if (encodeGrouping !== 'auto') return encodeGrouping;
      // One machine: one decode for the whole ladder beats three. Several: fan out across them.
      return (await farm.liveNodeCount()) > 1 ? 'rendition' : 'ladder';
    },

    /**
     * The encode activity: one or more renditions (one for a fanned-out ladder, the whole ladder
     * otherwise) in one encode on one node: one decode of the source, one slot, one ffmpeg.
     * Heartbeats every few seconds with the latest progress while the node streams; a node that
     * dies or stalls is taken out of rotation and the attempt fails as NodeLost, so Temporal retries
     * it on another node; a retry encodes every rendition again. Cancellation aborts the call (the
     * node stops ffmpeg). Outcomes in `renditions` order.
     */
    async encodeRenditions(input: EncodeInput): Promise<EncodeOutcome[]> {
      return encode(input);
    },

    /**
     * One chunk of a video (docs/architecture.md#chunked-encoding): every rendition of the input
     * for the chunk's window, from one decode, segments numbered for the whole video, audio copied
     * from the video's audio track. Retried like any encode (a lost node costs this chunk only).
     * When done, its record goes to storage (after its segments), so a later run of the same plan
     * (a retry after `failed`) finds it and does not encode it again. Outcomes in renditions order.
     */
    async encodeChunk(input: EncodeChunkInput): Promise<EncodeOutcome[]> {
      const lifetime = urlLifetimeSeconds();
      const outputUrls = await presignOutputs(input.videoId, input.renditions, input.durationSeconds, input, lifetime);
      const chunk: ChunkEncode = {
        renditions: input.renditions.map(renditionSpecOf),
        outputUrls,
        index: input.chunk.index,
        startSeconds: input.chunk.startSeconds,
        durationSeconds: input.chunk.durationSeconds,
        firstSegment: input.chunk.firstSegment,
        audioUrl: input.audioTrackKey ? await storage.presignGet(input.audioTrackKey, lifetime) : '',
        measureQuality: input.measureQuality ?? false,
        audioHead: input.audioHead ?? false,
      };
      // A just-in-time run's entry says which segments it makes: a viewer's request raises it.
      const placement: QueuePlacement | undefined = input.justInTime
        ? {
          priority: input.justInTime.urgent ? 1 : 0,
          rank: input.justInTime.rank,
          segments: { renditions: input.renditions.map((r) => r.key), firstSegment: input.chunk.firstSegment, segmentCount: input.chunk.segmentCount },
        }
        : undefined;
      const { done, node, timings } = await callEncode(input, { chunk }, placement);
      const outcomes = outcomesOf(input.renditions, done, node, timings);
      await whileHeartbeating(() =>
        storage.put(objectKeys.chunkRecord(input.videoId, input.planId, input.recordName), JSON.stringify(outcomes), workContentTypes.chunkRecord),
      );
      return outcomes;
    },

    /**
     * The whole video's audio track for its chunks, encoded once with `rendition`'s audio settings
     * (every rendition shares them) on a node slot. Kept in storage: a retry of the video reuses it.
     */
    async encodeAudioTrack({ videoId, storagePath, rendition, probe, urgent, justInTime }: EncodeAudioTrackInput): Promise<string> {
      const key = objectKeys.audioTrack(videoId, audioSetting(rendition));
      if (await whileHeartbeating(() => storage.head(key))) return key;
      const outputUrl = await storage.presignPut(key, urlLifetimeSeconds(), workContentTypes.audioTrack);
      const audioTrack: AudioTrackEncode = { audioCodec: rendition.audioCodec, audioBitrateKbps: rendition.audioBitrateKbps, outputUrl };
      // Just in time, the track ranks first in its video's playback order (its runs rank from 1 in
      // the background), and its entry names the segments that wait for it: a request raises it.
      const placement: QueuePlacement | undefined = urgent
        ? { priority: 1 }
        : justInTime
          ? { priority: 0, rank: 0, ...(justInTime.awaiting ? { segments: justInTime.awaiting } : {}) }
          : undefined;
      await callEncode({ videoId, storagePath, ...(probe ? { probe } : {}) }, { audioTrack }, placement);
      return key;
    },

    /**
     * The video's `audio.m4a` download (objectKeys.audioDownload): its audio alone, AAC in an MP4
     * with moov first, on a node slot. A remux where the audio is already AAC: the source's own when
     * it is AAC, else the chunked encode's audio track (`audioTrackKey`) when that is AAC; an AAC-LC
     * encode of the source otherwise (at `rendition`'s bitrate when its codec is AAC, else 128 kbps).
     * Made once: a retry finds it in storage.
     */
    async makeAudioDownload({ videoId, storagePath, rendition, probe, audioTrackKey }: AudioDownloadInput): Promise<string> {
      const key = objectKeys.audioDownload(videoId);
      if (await whileHeartbeating(() => storage.head(key))) return key;
      const outputUrl = await storage.presignPut(key, urlLifetimeSeconds(), audioDownloadContentType);
      const source = audioDownloadSource({ storagePath, rendition, probe, ...(audioTrackKey ? { audioTrackKey } : {}) });
      const audioTrack: AudioTrackEncode = { ...source.encoding, outputUrl };
      await callEncode({ videoId, storagePath: source.input, probe }, { audioTrack });
      return key;
    },

    /**
     * The chunks of a plan already done in storage. The plan's id hashes everything the chunks'
     * bytes depend on (the source, the renditions, the chunk windows), so a video retried with the
     * same parameters reuses its chunks and one with other parameters starts afresh.
     */
    async findFinishedChunks({ videoId, plan }: { videoId: string; plan: unknown }): Promise<FinishedChunks> {
      const planId = createHash('sha256').update(JSON.stringify(plan)).digest('hex').slice(0, 16);
      const finished: FinishedChunks['finished'] = {};
      const prefix = objectKeys.chunkRecord(videoId, planId, '');
      // One read per finished chunk: seconds for a long video.
      await whileHeartbeating(async () => {
        for (const key of await storage.list(prefix.slice(0, prefix.lastIndexOf('/') + 1))) {
          const name = key.slice(key.lastIndexOf('/') + 1).replace(/\.json$/, '');
          const body = await storage.get(key);
          if (body) finished[name] = JSON.parse(body.toString('utf8')) as EncodeOutcome[];
        }
      });
      return { planId, finished };
    },

    /** The chunk length of chunked encodes (ENCODE_CHUNK_SECONDS); read once per video. */
    async encodeChunkSeconds(): Promise<number> {
      return chunkSeconds;
    },

    /**
     * The same for one rendition. Only workflows started before the one encode protocol call it (and
     * their histories name it); kept registered so they finish. Remove once none runs.
     */
    async encodeRendition({ videoId, storagePath, rendition, durationSeconds }: EncodeRenditionInput): Promise<EncodeOutcome> {
      // Its workflows never sent a probe: the encode probes the source once (sourceOf).
      const [outcome] = await encode({ videoId, storagePath, renditions: [rendition], durationSeconds });
      return outcome!;
    },

    /**
     * One JPEG at `timestampSeconds` of the source, source-sized, under thumbs/: the default
     * thumbnail, or a custom one (`name`, from POST .../thumbnails). Takes no encode slot.
     */
    async makeThumbnail({
      videoId,
      storagePath,
      timestampSeconds,
      name = defaultThumbnailName,
    }: {
      videoId: string;
      storagePath: string;
      timestampSeconds: number;
      name?: string;
    }): Promise<string> {
      const key = objectKeys.thumbnail(videoId, name);
      const lifetime = urlLifetimeSeconds();
      const [inputUrl, outputUrl] = await Promise.all([storage.presignGet(storagePath, lifetime), storage.presignPut(key, lifetime, hlsContentTypes.thumbnail)]);
      await runJobOnNode(videoId, 'thumbnail', { slot: false }, (node, jobId) =>
        farm
          .client(node.address)
          .thumbnail(
            { jobId, inputUrl, outputUrl, timestampSeconds, width: 0, height: 0 },
            { signal: Context.current().cancellationSignal, timeoutMs: quickCallTimeoutMs },
          ),
      );
      return key;
    },

    /**
     * The storyboard (contract storyboard.ts): its sheets and WebVTT under storyboard/, made by a
     * node from the source. Returns the VTT's key.
     */
    async makeStoryboard({ videoId, storagePath, durationSeconds }: { videoId: string; storagePath: string; durationSeconds: number }): Promise<string> {
      const { sheets } = planStoryboard(durationSeconds);
      const vttKey = objectKeys.storyboard(videoId, storyboardVttName);
      const lifetime = urlLifetimeSeconds();
      const [inputUrl, vttUrl, ...sheetUrls] = await Promise.all([
        storage.presignGet(storagePath, lifetime),
        storage.presignPut(vttKey, lifetime, storyboardContentTypes.vtt),
        ...Array.from({ length: sheets }, (_, i) =>
          storage.presignPut(objectKeys.storyboard(videoId, storyboardSheetName(i)), lifetime, storyboardContentTypes.sheet),
        ),
      ]);
      await runJobOnNode(videoId, 'storyboard', { slot: false }, (node, jobId) =>
        farm
          .client(node.address)
          .storyboard(
            { jobId, inputUrl: inputUrl!, durationSeconds, sheetUrls, vttUrl: vttUrl! },
            { signal: Context.current().cancellationSignal, timeoutMs: storyboardCallTimeoutMs },
          ),
      );
      return vttKey;
    },
  };
}

function invalidSource(reason: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(reason, failureTypes.invalidSource);
}

/** The node went silent: no word on the stream for too long, or the registry dropped it. */
class NodeStalledError extends Error {}
function nodeStalled(reason: Error): NodeStalledError {
  return new NodeStalledError(reason.message);
}

/** Bits per second the playlist can announce when the node measured nothing: the planned rates plus container overhead. */
function estimatedBandwidth(rendition: { videoBitrateKbps: number; audioBitrateKbps: number }): number {
  return segmentBitsPerSecond(rendition.videoBitrateKbps + rendition.audioBitrateKbps);
}

/** How long to wait before the next attempt when storage was unreachable: outages outlast blips. */
function storageRetryDelayMs(attempt: number): number {
  return Math.min(5 * 60_000, 15_000 * 2 ** (attempt - 1));
}

/**
 * Turns a failed node call into what the workflow's retry policy acts on. The node's own answer
 * carries a FailureReason (kino.proto), and each reason has its rule:
 * - INVALID_SOURCE, SOURCE_NOT_FOUND: InvalidSource, final (the video fails);
 * - INVALID_REQUEST, TIMESTAMP_OUT_OF_RANGE: InvalidRequest, final (another attempt asks the same);
 * - NODE_BUSY: NoNodeAvailable, retried after a second (the registry and the node disagreed on a slot);
 * - STORAGE_UNAVAILABLE: StorageUnavailable, retryable after a longer delay; the node is fine;
 * - URL_REFUSED: UrlRefused, retryable (the next attempt presigns fresh URLs);
 * - FFMPEG_FAILED and the rest: NodeWorkFailed, retryable within the policy's attempts.
 * Only a call the node did not answer means the node is lost (connection refused, dropped or reset,
 * deadline, cancelled not by us, the stream ended without `done`, or silence for too long):
 * NodeLost, retried at once (the next attempt queues for a slot on another node), and the node
 * is marked gone with its slots freed until it heartbeats again. A lease the registry dropped
 * (the node stopped heartbeating) ends the call the same way.
 * Cancelled by us: the CancelledFailure, so Temporal records a cancellation.
 */
async function classifyNodeFailure(
  error: unknown,
  { farm, node, what, log, signal, attempt }: { farm: NodeFarm; node: FarmNode; what: string; log: Logger; signal: AbortSignal; attempt: number },
): Promise<Error> {
  if (signal.aborted) {
    log.info({ reason: String(signal.reason) }, `${what} cancelled`);
    return signal.reason instanceof CancelledFailure ? signal.reason : new CancelledFailure(`${what} cancelled`);
  }
  if (error instanceof ApplicationFailure) return error;
  if (error instanceof NodeJobFailure) {
    const detail = redactUrls(error.details);
    log.warn({ reason: error.reason, detail }, `${what} failed on the node`);
    switch (error.reason) {
      case 'INVALID_SOURCE':
        return ApplicationFailure.nonRetryable(detail, failureTypes.invalidSource);
      case 'SOURCE_NOT_FOUND':
        return ApplicationFailure.nonRetryable(`the uploaded file is gone: ${detail}`, failureTypes.invalidSource);
      case 'INVALID_REQUEST':
      case 'TIMESTAMP_OUT_OF_RANGE':
        return ApplicationFailure.nonRetryable(`node ${node.nodeId} refused the ${what}: ${detail}`, failureTypes.invalidRequest);
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
        return ApplicationFailure.retryable(`${what} on node ${node.nodeId}: storage refused a URL: ${detail}`, failureTypes.urlRefused);
      case 'FFMPEG_FAILED':
      case 'CANCELLED': // by the node, not by us (checked above)
      case 'UNAUTHENTICATED':
      case 'INTERNAL':
      case 'FAILURE_REASON_UNSPECIFIED':
        return ApplicationFailure.retryable(`${what} failed on node ${node.nodeId}: ${detail}`, failureTypes.nodeWorkFailed);
    }
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
        return ApplicationFailure.retryable(`${what} failed on node ${node.nodeId}: ${GrpcStatus[error.code]}: ${detail}`, failureTypes.nodeWorkFailed);
    }
  }
  log.warn({ err: error }, `${what} failed`);
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The id of the node job an activity runs: one per activity (not per attempt), so the node reports
 * it in heartbeats and a retry drops the lease an attempt of a dead worker left behind. Safe as a
 * file name (nodes name job directories after it): `vid_…-a12-01a1fcba`.
 */
export function nodeJobId(videoId: string, activityId: string, workflowRunId: string): string {
  return `${videoId}-a${activityId}-${workflowRunId.slice(0, 8)}`.replace(/[^A-Za-z0-9_-]/g, '_');
}
