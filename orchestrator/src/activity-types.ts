// What the workflows and the activities hand each other. Plain data (it is stored in Temporal's
// history), no imports of code: the workflow sandbox reads these as types only. The task queue,
// workflow ids and workflow inputs, which the API shares, are in @kino/proto/contract.
import type {
  EncodingParameters,
  LiveStreamLatency,
  VideoQuality,
  VideoStatus,
  Watermark,
  WebhookPayload,
} from '@kino/proto/contract';
import type { ChunkPlan } from './chunks.ts';
import type { RenditionPlan } from './ladder.ts';
import type { ProbeResult__Output } from '@kino/proto';
import type { QueuedSegments } from '@kino/database/repositories';

/** Error types that carry meaning across the workflow/activity boundary (ApplicationFailure.type). */
export const failureTypes = {
  /** The source cannot become a video: unreadable, empty, not a video. Never retried. */
  invalidSource: 'InvalidSource',
  /** No live encode node (with a free slot) came in time. The workflow waits for a node and tries again. */
  noNodeAvailable: 'NoNodeAvailable',
  /** The node went away mid-call (killed, unreachable, stalled). Retried on another node. */
  nodeLost: 'NodeLost',
  /** A node refused the request itself (a malformed encode, a thumbnail past the end). Never retried. */
  invalidRequest: 'InvalidRequest',
  /** The node could not reach storage. Retried after a longer delay; the node is not blamed. */
  storageUnavailable: 'StorageUnavailable',
  /** Storage refused a presigned URL. Retried: the next attempt presigns fresh ones. */
  urlRefused: 'UrlRefused',
  /** ffmpeg failed on the node, or the node failed otherwise. Retried within the policy's attempts. */
  nodeWorkFailed: 'NodeWorkFailed',
  /** A webhook's endpoint was deleted while its delivery was pending: nothing left to send to. */
  webhookGone: 'WebhookGone',
  /** A webhook's host resolves to a loopback, private, link-local or other non-public address. Never retried. */
  webhookDestinationRefused: 'WebhookDestinationRefused',
} as const;

/**
 * How long an encode activity waits in the encode queue for a slot before it gives up with a final
 * NoNodeAvailable; the workflow then waits for a live node and queues a new activity. Keeps a long
 * wait out of one activity's start-to-close budget (the workflow adds it to that budget).
 */
export const encodeQueueWaitMinutes = 10;

/**
 * Every activity that may run longer than a few seconds heartbeats (activities/heartbeat.ts) and its
 * proxy sets this heartbeat timeout: a worker that dies mid-activity is noticed, and the activity
 * retried, within these seconds (docs/activities.md). Ten, as the registry's node heartbeat: an
 * orchestrator lost costs no more than a node lost. The worker sends a beat at most every 2 s
 * (its heartbeat throttle) and the activities beat every 2.5 s, so four beats in a row must be lost.
 */
export const activityHeartbeatTimeoutSeconds = 10;

/**
 * Attempts of a URL ingest's fetch (a 5xx, no answer, a worker lost). The activity knows its last
 * one by this number: a failure there aborts the multipart upload, as a final failure does.
 */
export const ingestFetchMaxAttempts = 5;

/** The `videos` row, as far as processing needs it. */
export interface VideoJob {
  videoId: string;
  storagePath: string;
  /**
   * A URL ingest's source address: the workflow fetches it into `storagePath` before the probe.
   * Absent for uploads, and in every history recorded before URL ingest (they replay unchanged).
   */
  sourceUrl?: string;
  quality: VideoQuality;
  /** The process request's, after the API's defaults (kept on the video row). */
  parameters: EncodingParameters;
  status: VideoStatus;
  deleted: boolean;
  /**
   * A broadcast's: its stream's latency when the broadcast started (`low`: LL-HLS parts). Absent for
   * other videos and in histories recorded before LL-HLS (their broadcasts ran as `standard`).
   */
  liveLatency?: LiveStreamLatency;
}

/**
 * The source as a node's ffprobe saw it (kino.proto ProbeResult): probed once per video, then sent
 * with every encode of it (nodes do not probe again).
 */
export type SourceProbe = ProbeResult__Output;

/**
 * The probe an encode activity sends its node. Absent in activities scheduled by workflows started
 * before the probe travelled with encodes, and without `videoDurationSeconds` when such a workflow
 * probed the source: the activity then probes the source itself, once. Without `dynamicRange` when
 * probed before it was read: sent as it is, the node takes the source for SDR, as it did then.
 */
export type RecordedProbe = Partial<SourceProbe> &
  Omit<SourceProbe, 'videoDurationSeconds' | 'audioChannels' | 'audioSampleRate' | 'dynamicRange'>;

/** One rendition: the input of `encodeRendition`, which only workflows started before the one encode protocol call. */
export interface EncodeRenditionInput {
  videoId: string;
  storagePath: string;
  rendition: RenditionPlan;
  durationSeconds: number;
}

/**
 * One encode on one node: one or more renditions of one video from one decode of the source (one
 * when the ladder fans out, the whole ladder otherwise). The input of `encodeRenditions`.
 */
export interface EncodeInput {
  videoId: string;
  storagePath: string;
  renditions: RenditionPlan[];
  durationSeconds: number;
  probe?: RecordedProbe;
  /** Score every rendition against the source (VMAF, PSNR) on the node before answering. */
  measureQuality?: boolean;
  /** Labels its node must carry, every one (the video's `nodeLabels`); absent: any node. */
  nodeLabels?: string[];
  /** The video's watermark, laid over every picture rendition; absent: none (and in histories before it). */
  watermark?: Watermark;
}

/**
 * One chunk of a video (docs/architecture.md#chunked-encoding): every rendition of `renditions`
 * for the chunk's window, from one decode. The input of `encodeChunk`.
 */
export interface EncodeChunkInput extends EncodeInput {
  chunk: ChunkPlan;
  /** Whether it is the video's last chunk (it may write a segment more than planned). */
  last: boolean;
  /** The video's audio track (an `encodeAudioTrack` output); absent when the video has no audio. */
  audioTrackKey?: string;
  /**
   * Set on a just-in-time video's early runs (no `audioTrackKey`): the node encodes the track up to
   * the run's end itself (the same packets), so the first segments do not wait for the whole track.
   */
  audioHead?: true;
  /** The chunk plan's id (findFinishedChunks): where the chunk's record goes when it is done. */
  planId: string;
  /** The chunk's record name within the plan: `<group>-<index>`. */
  recordName: string;
  /**
   * A just-in-time run (docs/decisions/just-in-time.md): its place in the video's playback order,
   * and whether someone waits for it from the start (the video's first segment). `ahead`: the first
   * of the video's background work (its second bootstrap run, queued beside the first). Absent: a
   * chunk of a video published whole.
   */
  justInTime?: { rank: number; urgent: boolean; ahead?: true };
}

/** The audio track of a chunked video: the input of `encodeAudioTrack`. */
export interface EncodeAudioTrackInput {
  videoId: string;
  storagePath: string;
  /** Whose audio settings (codec, bitrate) the track is encoded with: every rendition shares them. */
  rendition: RenditionPlan;
  durationSeconds: number;
  probe?: RecordedProbe;
  /** Labels its node must carry, every one (the video's `nodeLabels`); absent: any node. */
  nodeLabels?: string[];
  /**
   * Urgent work: a just-in-time video whose every run waits for the track. Set by workflows started
   * before audio heads (`justInTime` since).
   */
  urgent?: boolean;
  /**
   * A just-in-time video whose first runs make their own audio heads: the track is the first of the
   * video's background work (its first runs, which `ready` waits for, are not slowed by it), and a
   * viewer's request for a segment of a run that waits for it (`awaiting`) raises it.
   */
  justInTime?: { awaiting?: QueuedSegments };
}

/** The `audio.m4a` download of a video with sound: the input of `makeAudioDownload`. */
export interface AudioDownloadInput {
  videoId: string;
  storagePath: string;
  /** The ladder's audio settings (its first rendition's): an AAC encode is made with them. */
  rendition: RenditionPlan;
  probe: SourceProbe;
  /** The chunked encode's audio track, when the video was chunked: copied when it is AAC. */
  audioTrackKey?: string;
}

/** What `findFinishedChunks` answers: the plan's id and the chunks already recorded done under it. */
export interface FinishedChunks {
  planId: string;
  /** Record name (`<group>-<index>`) -> the chunk's outcomes, in its renditions' order. */
  finished: Record<string, EncodeOutcome[]>;
}

/** One segment an encode wrote (a chunk's are numbered for the whole video). */
export interface SegmentOutcome {
  name: string;
  durationSeconds: number;
  sizeBytes: number;
}

/**
 * How the workflow groups a video's renditions into encode activities (ENCODE_GROUPING):
 * `ladder`, one activity for the whole ladder (one decode of the source); `rendition`, one per rendition.
 */
export type EncodeGrouping = 'ladder' | 'rendition';

/** The ENCODE_GROUPING setting: a grouping, or `auto` to decide per video from the live nodes. */
export type EncodeGroupingSetting = EncodeGrouping | 'auto';

/** What an encode produced, measured on the output by the node. */
export interface EncodeOutcome {
  key: string;
  width: number;
  height: number;
  codecs: string;
  /** Peak bits/s (BANDWIDTH). */
  bandwidth: number;
  /** Average bits/s (AVERAGE-BANDWIDTH). */
  averageBandwidth: number;
  segmentCount: number;
  frameCount: number;
  bytesWritten: number;
  nodeId: string;
  /** Where the attempt's time went, for the benchmark and the logs. */
  timings: EncodeTimings;
  /** The segments, for a chunk (the workflow writes the playlists from them). */
  segments?: SegmentOutcome[];
  /** Against the source, when the encode was asked to measure it. */
  quality?: QualityOutcome;
}

/** A rendition's quality against its source over the frames scored (docs/decisions/quality.md). */
export interface QualityOutcome {
  /** Mean VMAF (vmaf_v0.6.1), 0..100. */
  vmaf: number;
  /** Mean luma PSNR, dB. */
  psnr: number;
  frames: number;
}

export interface EncodeTimings {
  /** Presigning the job's URLs and taking a node slot. */
  prepareMs: number;
  /** From the Encode call to the node's first progress event (ffmpeg start, first input bytes). */
  startupMs: number;
  /** From the first progress event until ffmpeg reported the whole duration (segments upload meanwhile). */
  encodeMs: number;
  /** From then to `done`: the node's last uploads (init, playlist, last segment) and measurements. */
  finishMs: number;
}

export interface RenditionResult {
  plan: RenditionPlan;
  outcome: EncodeOutcome;
}

export interface MarkReadyInput {
  videoId: string;
  probe: SourceProbe;
  renditions: RenditionResult[];
  thumbnailKey: string | null;
  /** Absent in workflows started before storyboards. */
  storyboardKey?: string | null;
  /** The `audio.m4a` download; null without sound. Absent in workflows started before audio downloads. */
  audioKey?: string | null;
  /** Ready before its ladder is complete (just in time): true at its first segments, false once complete. */
  segmentsPending?: boolean;
}

export type ProcessVideoResult =
  | {
      status: 'ready';
      renditions: RenditionResult[];
      thumbnailKey: string | null;
      storyboardKey?: string | null;
      audioKey?: string | null;
      probe: SourceProbe;
    }
  | { status: 'failed'; reason: string }
  /** Nothing to do: the video was deleted, is missing, or is not waiting to be processed. */
  | { status: 'skipped'; reason: string };

export interface SendWebhookInput {
  webhookId: string;
  /** `webhook-id`: the same on every retry, so receivers can drop duplicates. */
  messageId: string;
  payload: WebhookPayload;
}
