// processVideo: one workflow per video (id `video:{videoId}`), from an uploaded file to a ready HLS
// ladder, or to `failed` with a reason. Deterministic workflow code: activities are imported as
// types only and reached through proxies, declared once per kind of work. The proxies and helpers
// that makeFrameAccurateClip uses too are exported (workflows/index.ts exports only workflows).
import {
  ActivityCancellationType,
  ActivityFailure,
  ChildWorkflowFailure,
  ApplicationFailure,
  CancellationScope,
  ParentClosePolicy,
  TimeoutFailure,
  isCancellation,
  log,
  patched,
  proxyActivities,
  startChild,
  uuid4,
} from '@temporalio/workflow';
import {
  hlsSegmentName,
  isHlsBootstrapName,
  measureBandwidth,
  workflowIds,
  type EncodingParameters,
  type PlaylistSegment,
  type ProcessVideoInput,
  type VideoWebhookPayload,
  type Watermark,
} from '@kino/proto/contract';
import type { Activities } from '../activities/index.ts';
import { meanQuality, planChunks, planJustInTimeRuns, qualitySampleChunks, type ChunkPlan } from '../chunks.ts';
import { declaredVariant, masterAudioOf, masterVariantOf } from '../master-playlist.ts';
import {
  encodeGroups,
  isAlternateAudioPlan,
  isAudioOnlyPlan,
  measuresQuality,
  planLadder,
  sourceHdrOf,
} from '../ladder.ts';
import type { RenditionPlan } from '../ladder.ts';
import {
  activityHeartbeatTimeoutSeconds,
  encodeQueueWaitMinutes,
  failureTypes,
  ingestFetchMaxAttempts,
  type EncodeGrouping,
  type EncodeOutcome,
  type EncodeRenditionInput,
  type ProcessVideoResult,
  type RenditionResult,
  type SegmentOutcome,
  type SourceProbe,
  type VideoJob,
} from '../activity-types.ts';
import { deliverWebhooks } from './deliver-webhooks.ts';
import { generateCaptions } from './generate-captions.ts';

/**
 * Every proxy below either has a start-to-close timeout of seconds or a heartbeat timeout of
 * seconds (its activities heartbeat while they work): an orchestrator killed mid-activity costs a
 * retry within `heartbeatTimeout`, never the minutes of a start-to-close timeout, which only bounds
 * work that hangs while its worker lives (docs/activities.md).
 */
const heartbeatTimeout = `${activityHeartbeatTimeoutSeconds} seconds`;

/** Database reads and writes: quick; a database blip is retried for a few minutes. */
export const database = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 12 },
});

/** Object storage housekeeping (master playlist, cleanup): a listing and a few writes, or thousands of deletes. */
export const storage = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

/**
 * Waiting for a node: fails with NoNodeAvailable while no live node is there (with a free slot, for
 * workflows started before the encode queue), and is retried without limit, so a video stays
 * `transcoding` while the farm is empty and goes on as soon as a node joins. Retries of one pending
 * activity add nothing to the history, however long it waits.
 */
const capacity = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  // Polled often (a cheap query): a queued encode starts within 2 s of a slot freeing up.
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 1.5,
    maximumInterval: '2 seconds' /* no maximumAttempts: unlimited */,
  },
});

/**
 * ffprobe on a node: a few retries for a node or network blip, or an orchestrator or node killed
 * (five attempts, as encodes have); an unreadable source is final.
 */
export const probing = proxyActivities<Activities>({
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [failureTypes.invalidSource],
  },
});

/**
 * A URL ingest's fetch (activities/ingest.ts): streams for as long as the source takes (heartbeating
 * per part), each retry resuming from the parts stored. An HTTP 4xx, a source over 5 GB, no accepted
 * container or a refused address is InvalidSource, final; a 5xx or no answer is retried.
 */
const ingesting = proxyActivities<Activities>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout,
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: ingestFetchMaxAttempts,
    nonRetryableErrorTypes: [failureTypes.invalidSource],
  },
});

/** The default thumbnail on a node (no encode slot); attempts as a probe's. */
export const thumbnails = proxyActivities<Activities>({
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/** A storyboard decodes the whole source on a node (no encode slot): minutes for a long video. */
export const storyboards = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/**
 * Encodes heartbeat every few seconds while they queue and while their node streams (a dead
 * orchestrator is noticed at the heartbeat timeout and the encode retried by another worker). The whole attempt
 * gets a generous budget scaled by the source's duration: even a slow preset on a small node
 * stays well inside it, plus the longest wait in the encode queue. A failed ffmpeg or an unreachable
 * storage is retried with backoff; a lost node is retried at once (the activity says so), on
 * another node when there is one; bad input is final. Lack of capacity is never a retry: the encode
 * waits in the queue (docs/architecture.md#encode-scheduling).
 */
export function encodeActivities(
  durationSeconds: number,
  twoPass: boolean,
  renditionsPerEncode: number,
  queueWaitMinutes: number,
) {
  const budgetMinutes =
    30 + queueWaitMinutes + Math.ceil((durationSeconds * 20 * (twoPass ? 2 : 1) * renditionsPerEncode) / 60);
  return proxyActivities<Activities>({
    startToCloseTimeout: `${budgetMinutes} minutes`,
    heartbeatTimeout,
    // Explicit (an unset type means TRY_CANCEL on the wire): cleanup must not race a node's uploads.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      initialInterval: '3 seconds',
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: 5,
      nonRetryableErrorTypes: [failureTypes.invalidSource],
    },
  });
}

/**
 * Just-in-time runs that end this early in the video make their own audio head rather than wait
 * for the whole audio track: an audio-only pass over the whole source, which took 16 s beside the
 * first run for a 5-minute 1080p source here, so a viewer at 1x reached the second run first and
 * stalled. Each head encodes the audio from the start to its run's end (at most 31 s of AAC, a
 * fraction of a CPU-second); by 30 s of playback the track is there.
 */
const audioHeadSeconds = 30;

/** Fraction of the duration where the default thumbnail is taken: past intros and fades to black. */
const thumbnailPosition = 0.1;

export async function processVideo({ videoId }: ProcessVideoInput): Promise<ProcessVideoResult> {
  const job = await database.loadVideoJob(videoId);
  if (!job) return { status: 'skipped', reason: 'video not found' };
  if (job.deleted) return { status: 'skipped', reason: 'video deleted' };
  if (job.status !== 'transcoding') return { status: 'skipped', reason: `video is ${job.status}, not transcoding` };

  // `chunked`: set once the ladder is encoded in chunks: a failure then keeps the finished chunks
  // for a retry. `published`: set once a just-in-time video is `ready` with its first segments.
  const run: LadderRun = { chunked: false, published: false };
  try {
    const result = await makeLadder(job, run);
    // Before `ready` (or complete): a ready video's files are all its own.
    if (run.chunked) await storage.removeWorkFiles({ videoId });
    const marked = await database.markVideoReady({
      videoId,
      probe: result.probe,
      renditions: result.renditions,
      thumbnailKey: result.thumbnailKey,
      ...(result.storyboardKey !== undefined ? { storyboardKey: result.storyboardKey } : {}),
      ...(result.audioKey !== undefined ? { audioKey: result.audioKey } : {}),
      ...(run.published ? { segmentsPending: false } : {}),
    });
    if (!marked) {
      // Deleted while we encoded: its content goes too.
      await storage.removeVideoOutputs({ videoId });
      return { status: 'skipped', reason: 'video deleted while processing' };
    }
    log.info(run.published ? 'ladder complete' : 'video ready', {
      videoId,
      renditions: result.renditions.map((r) => r.plan.key),
    });
    // A just-in-time video said `completed` when it became playable.
    if (!run.published)
      await notify('video.processing.completed', videoId, 'ready', {
        durationSeconds: result.probe.durationSeconds,
        renditions: result.renditions.map((r) => r.plan.key),
        thumbnailKey: result.thumbnailKey,
      });
    await startGeneratedSubtitles(videoId, job.parameters.generatedSubtitles ?? []);
    return { status: 'ready', ...result };
  } catch (error) {
    if (isCancellation(error)) {
      // Cancelled (the video is being deleted): leave nothing behind, report nothing.
      await CancellationScope.nonCancellable(() => storage.removeVideoOutputs({ videoId }));
      throw error;
    }
    const reason = describeFailure(error);
    log.warn('video failed', { videoId, reason });
    if (run.chunked) await storage.removeVideoOutputsButChunks({ videoId });
    else await storage.removeVideoOutputs({ videoId });
    await database.markVideoFailed({ videoId, reason });
    await notify('video.processing.failed', videoId, 'failed', { reason });
    return { status: 'failed', reason };
  }
}

/**
 * The caption tracks the process call asked to have made from speech, each its own run (abandoned:
 * the video is ready without them). Histories recorded before generated captions have parameters
 * without them: no command is added to their replay.
 */
async function startGeneratedSubtitles(
  videoId: string,
  asked: NonNullable<EncodingParameters['generatedSubtitles']>,
): Promise<void> {
  for (const { language, label } of asked) {
    try {
      await startChild(generateCaptions, {
        workflowId: workflowIds.generateCaptions(videoId, language),
        args: [{ videoId, language, ...(label !== undefined ? { label } : {}) }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    } catch (error) {
      log.error('could not start generated captions', { videoId, language, error: String(error) });
    }
  }
}

/** What a failure must know of how far the ladder got (processVideo's cleanup). */
interface LadderRun {
  chunked: boolean;
  published: boolean;
}

/** A made ladder: the renditions in ladder order and the keys of the files made beside them. */
interface Ladder {
  probe: SourceProbe;
  renditions: RenditionResult[];
  thumbnailKey: string | null;
  storyboardKey?: string | null;
  audioKey?: string | null;
}

/** Runs one encode on the farm, waiting for a slot as the workflow's version does. */
type RunEncode = <T>(work: () => Promise<T>) => Promise<T>;
type Encoding = ReturnType<typeof encodeActivities>;

/**
 * The ladder's story: fetch and probe the source, plan the ladder, start the pictures, encode
 * (whole or in chunks, just in time or not), write the master playlist, then audio.m4a. The steps
 * keep the order of the commands (patch markers and activities) of every recorded history.
 */
async function makeLadder(job: VideoJob, run: LadderRun): Promise<Ladder> {
  const { probe, ladder: planned } = await probeAndPlanLadder(job);
  // A source with several audio tracks: the pictures (`ladder`, without sound) go the usual way, the
  // tracks' alternate audio renditions are encoded beside them. Histories recorded before the probe
  // listed tracks plan none, so they replay as they ran.
  const ladder = planned.filter((plan) => !isAlternateAudioPlan(plan));
  // An audio-only source (no picture, sound) has one rendition of audio alone: no pictures to take,
  // no chunks (its audio encode is quick). Histories recorded before audio-only sources failed at
  // the probe, so none reaches here with one: branching on the plan changes none of them.
  const audioOnly = isAudioOnlyPlan(ladder[0]!);
  const { thumbnail, storyboard } = startPictures(job, probe, audioOnly);
  // Each await that precedes a command stays in this function, as when release 0.1.0 recorded its
  // histories: an await inside a helper adds microtask turns before the caller's next command, in
  // which a thumbnail or storyboard whose node wait ended in the same activation schedules its
  // activity first, and the history no longer replays (test/deploy/upgrade.test.ts found it).
  // One encode for the whole ladder (one decode of the source) unless the orchestrator is configured
  // for one per rendition. Workflows started before grouping existed replay as one per rendition.
  const grouping: EncodeGrouping = patched('encode-grouping') ? await database.encodeGrouping() : 'rendition';
  const encodes = planEncodes(job, probe, ladder, grouping);
  const alternateAudio = startAlternateAudio(job, probe, planned.filter(isAlternateAudioPlan), encodes);
  // Just in time (docs/decisions/just-in-time.md): the video turns `ready` with its first segment,
  // the rest is made in short runs in playback order, and a viewer's request for a segment raises
  // its run. Else videos longer than one chunk are encoded in chunks over every node
  // (docs/architecture.md#chunked-encoding). Workflows started before either replay without it.
  const segmentSeconds = ladder[0]!.segmentSeconds;
  const justInTime =
    patched('just-in-time') && !audioOnly ? await database.justInTimeRuns({ videoId: job.videoId }) : null;
  const chunks = justInTime
    ? planJustInTimeRuns(
        probe.durationSeconds,
        justInTime.runSeconds,
        segmentSeconds,
        // The activity's answer is in the history: a replay takes the same branch.
        justInTime.bootstrap !== false && patched('bootstrap-segments')
          ? patched('bootstrap-rest-with-next-run')
            ? 'bootstrap-with-next'
            : 'bootstrap-apart'
          : 'whole',
      )
    : patched('chunked-encoding') && !audioOnly
      ? planChunks(probe.durationSeconds, await database.encodeChunkSeconds(), segmentSeconds)
      : [];
  // Just in time, a video short enough for one run (up to two segments) is made as a longer
  // video's first run is: urgent, and ready as it ends. Before, it was one encode of the whole
  // source, queued as background work behind every other video's runs.
  run.chunked = chunks.length > 1 || (justInTime !== null && patched('just-in-time-one-run'));
  const publish = justInTime
    ? (first: RenditionResult[]) =>
        publishFirstSegments(job.videoId, probe, first, thumbnail, run, alternateAudio.done, chunks[0]?.bootstrap)
    : undefined;
  const { renditions, audioTrackKey } = await (
    run.chunked
      ? encodeInChunks(job, probe, ladder, chunks, queueThenRun, publish)
      : encodeFromWholeSource(job, probe, ladder, encodes).then((whole) => ({
          renditions: whole,
          audioTrackKey: undefined,
        }))
  ).catch(async (error: unknown) => {
    // Settled before the caller cleans up, so no thumbnail, storyboard or audio lands after the cleanup.
    alternateAudio.cancel();
    await Promise.allSettled([alternateAudio.done]);
    await Promise.all([thumbnail, storyboard]);
    throw error;
  });
  const audioRenditions = await alternateAudio.done;
  await writeMeasuredMasterPlaylist(job.videoId, renditions, audioRenditions);
  // Every video with sound gets audio.m4a (before `ready`, while a chunked video's audio track is
  // still in work/). Workflows started before audio downloads replay without it.
  const audioKey = patched('audio-download')
    ? probe.hasAudio
      ? await makeAudioDownload(job, probe, ladder[0]!, audioTrackKey, encodes.runEncode, encodes.encoding)
      : null
    : undefined;
  const [thumbnailKey, storyboardKey] = await Promise.all([thumbnail, storyboard]);
  return {
    probe,
    renditions: [...renditions, ...audioRenditions],
    thumbnailKey,
    ...(storyboard ? { storyboardKey } : {}),
    ...(audioKey !== undefined ? { audioKey } : {}),
  };
}

/** The source fetched (an ingest's) and probed, and the ladder planned for it. */
async function probeAndPlanLadder(job: VideoJob): Promise<{ probe: SourceProbe; ladder: RenditionPlan[] }> {
  const { videoId, storagePath } = job;
  // An ingested video's source is fetched first. Branches on the job (the recorded loadVideoJob
  // result), not a patch: histories from before URL ingest carry no sourceUrl and replay as they ran.
  if (job.sourceUrl) await ingesting.fetchIngestSource({ videoId, url: job.sourceUrl, storagePath });
  const probe = await waitForNodeThenRun({ freeSlot: false }, () => probing.probeSource({ videoId, storagePath }));
  const ladder = planLadder(job.quality, probe, job.parameters);
  log.info('ladder planned', {
    videoId,
    renditions: ladder.map((r) => `${r.key} ${r.width}x${r.height}@${r.videoBitrateKbps}k`),
  });
  return { probe, ladder };
}

/**
 * The default thumbnail and the storyboard, started to be made while the renditions encode (they
 * need no encode slot; neither rejects). Workflows started before storyboards replay without it.
 */
function startPictures(
  job: VideoJob,
  probe: SourceProbe,
  audioOnly: boolean,
): { thumbnail: Promise<string | null>; storyboard: Promise<string | null> | undefined } {
  const thumbnail = audioOnly ? Promise.resolve(null) : makeThumbnail(job, probe);
  const storyboard = patched('storyboard')
    ? audioOnly
      ? Promise.resolve(null)
      : makeStoryboard(job, probe)
    : undefined;
  return { thumbnail, storyboard };
}

/** How the ladder's encodes are grouped and run, as the patches this workflow started with say. */
interface EncodePlan {
  grouping: EncodeGrouping;
  /** Off only in workflows started before the one encode protocol: then an encode per rendition is `encodeRendition`. */
  oneEncodeActivity: boolean;
  groups: RenditionPlan[][];
  runEncode: RunEncode;
  encoding: Encoding;
}

/** The encodes' plan once the grouping is known: synchronous, so no await comes between its commands and the next. */
function planEncodes(job: VideoJob, probe: SourceProbe, ladder: RenditionPlan[], grouping: EncodeGrouping): EncodePlan {
  // Every encode is one `encodeRenditions` with a list (of one when fanned out). Workflows started
  // before that called `encodeRendition` per rendition; their histories name it, so they replay
  // down the old branch (and the activity stays registered) until none runs.
  const oneEncodeActivity = patched('one-encode-protocol');
  // Encodes wait for a slot in the encode queue, inside the activity. Workflows started before it
  // polled for a free slot first (waitForNodeCapacity, then the encode); they replay down that branch.
  const encodeQueue = patched('encode-queue');
  const runEncode: RunEncode = (work) =>
    encodeQueue ? queueThenRun(work) : waitForNodeThenRun({ freeSlot: true }, work);
  // (A node runs one encode's renditions in one ffmpeg, so they share single- or two-pass.)
  const groups = grouping === 'ladder' ? encodeGroups(ladder) : ladder.map((plan) => [plan]);
  const encoding = encodeActivities(
    probe.durationSeconds,
    job.parameters.twoPassVBREncoding,
    Math.max(...groups.map((g) => g.length)),
    encodeQueue ? encodeQueueWaitMinutes : 0,
  );
  return { grouping, oneEncodeActivity, groups, runEncode, encoding };
}

/** The ladder from the whole source: one encode per group, on any node, in ladder order whatever the grouping. */
async function encodeFromWholeSource(
  job: VideoJob,
  probe: SourceProbe,
  ladder: RenditionPlan[],
  encodes: EncodePlan,
): Promise<RenditionResult[]> {
  const { videoId, storagePath } = job;
  const { grouping, oneEncodeActivity, groups, runEncode, encoding } = encodes;
  const results = await allOrCancelRest(
    groups.map((group) => async (): Promise<RenditionResult[]> => {
      if (!oneEncodeActivity && grouping === 'rendition') {
        const plan = group[0]!;
        const input: EncodeRenditionInput = {
          videoId,
          storagePath,
          rendition: plan,
          durationSeconds: probe.durationSeconds,
        };
        const outcome = await runEncode(() => encoding.encodeRendition(input));
        return [{ plan, outcome }];
      }
      const outcomes = await runEncode(() =>
        encoding.encodeRenditions({
          videoId,
          storagePath,
          renditions: group,
          durationSeconds: probe.durationSeconds,
          probe,
          ...(measuresQuality(job.parameters) ? { measureQuality: true } : {}),
          ...nodeLabelsOf(job),
          ...watermarkOf(job.parameters),
        }),
      );
      return group.map((plan, k) => ({ plan, outcome: outcomes[k]! }));
    }),
  );
  return ladder.map((plan) => results.flat().find((r) => r.plan.key === plan.key)!);
}

/**
 * The alternate audio renditions of a source with several tracks, each one encode of its track
 * alone (seconds of AAC for minutes of video), started now and run beside the pictures; `cancel`
 * stops them (the pictures failed). None for a source with one track.
 */
function startAlternateAudio(
  job: VideoJob,
  probe: SourceProbe,
  plans: RenditionPlan[],
  { runEncode, encoding }: EncodePlan,
): { done: Promise<RenditionResult[]>; cancel: () => void } {
  if (plans.length === 0) return { done: Promise.resolve([]), cancel: () => undefined };
  const scope = new CancellationScope();
  const done = scope.run(() =>
    allOrCancelRest(
      plans.map((plan) => async (): Promise<RenditionResult> => {
        const [outcome] = await runEncode(() =>
          encoding.encodeRenditions({
            videoId: job.videoId,
            storagePath: job.storagePath,
            renditions: [plan],
            durationSeconds: probe.durationSeconds,
            probe,
          }),
        );
        return { plan, outcome: outcome! };
      }),
    ),
  );
  // Awaited by makeLadder (or the first segments' publishing); a failure meanwhile is not unhandled.
  done.catch(() => undefined);
  return { done, cancel: () => scope.cancel() };
}

/**
 * Publishes a just-in-time video with its first segments: playlists of every segment, then `ready`.
 * Its alternate audio renditions (`alternateAudio`, complete) are in the master from the start.
 */
async function publishFirstSegments(
  videoId: string,
  probe: SourceProbe,
  first: RenditionResult[],
  thumbnail: Promise<string | null>,
  run: LadderRun,
  alternateAudio: Promise<RenditionResult[]>,
  /** The first segment is made as bootstrap segments: their playlists are written too. */
  bootstrap: boolean | undefined,
): Promise<void> {
  const audio = await alternateAudio;
  const plans = first.map((r) => r.plan);
  const { segmentCounts } = await storage.writePlannedPlaylists({
    videoId,
    durationSeconds: probe.durationSeconds,
    videoSeconds: probe.videoDurationSeconds,
    renditions: plans.map(({ key, frameRate, segmentSeconds }) => ({ key, frameRate, segmentSeconds })),
    ...(bootstrap ? { bootstrap } : {}),
  });
  const variants = first.map(({ plan, outcome }) => declaredVariant(plan, outcome));
  await storage.writeMasterPlaylist({ videoId, variants, ...masterAudioInput(audio) });
  const marked = await database.markVideoReady({
    videoId,
    probe,
    renditions: first
      .map(({ plan, outcome }, k) => ({
        plan,
        outcome: {
          ...outcome,
          bandwidth: variants[k]!.bandwidth,
          averageBandwidth: variants[k]!.averageBandwidth,
          segmentCount: segmentCounts[k]!,
          frameCount: Math.round(probe.videoDurationSeconds * plan.frameRate),
        },
      }))
      .concat(audio),
    thumbnailKey: await thumbnail,
    segmentsPending: true,
  });
  if (!marked) throw ApplicationFailure.nonRetryable('the video was deleted while processing');
  run.published = true;
  log.info('video ready, segments made just in time', { videoId, renditions: plans.map((p) => p.key) });
  await notify('video.processing.completed', videoId, 'ready', {
    durationSeconds: probe.durationSeconds,
    renditions: plans.map((p) => p.key),
    thumbnailKey: await thumbnail,
  });
}

/** The master's alternate audio, when there is any (the activity's input is as before without). */
function masterAudioInput(audio: RenditionResult[]) {
  return audio.length > 0 ? { audio: audio.map(({ plan, outcome }) => masterAudioOf(plan, outcome)) } : {};
}

/** The master playlist with the figures the encodes measured. */
async function writeMeasuredMasterPlaylist(
  videoId: string,
  renditions: RenditionResult[],
  audio: RenditionResult[],
): Promise<void> {
  await storage.writeMasterPlaylist({
    ...masterAudioInput(audio),
    videoId,
    variants: renditions.map(({ plan, outcome }) => masterVariantOf(plan, outcome)),
  });
}

/**
 * The `audio.m4a` download on a node slot (a remux where the audio is already AAC). Like the
 * thumbnail, its failure is not the video's: the video plays without it (this never rejects but
 * for a cancellation, which the caller's cleanup must see).
 */
async function makeAudioDownload(
  job: VideoJob,
  probe: SourceProbe,
  rendition: RenditionPlan,
  audioTrackKey: string | undefined,
  runEncode: RunEncode,
  encoding: Encoding,
): Promise<string | null> {
  try {
    return await runEncode(() =>
      encoding.makeAudioDownload({
        videoId: job.videoId,
        storagePath: job.storagePath,
        rendition,
        probe,
        ...(audioTrackKey ? { audioTrackKey } : {}),
      }),
    );
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn('no audio download', { videoId: job.videoId, reason: describeFailure(error) });
    return null;
  }
}

/** One chunk of one rendition group, done: its outcomes in the group's order. */
interface ChunkDone {
  group: RenditionPlan[];
  chunk: ChunkPlan;
  outcomes: EncodeOutcome[];
}

/**
 * The ladder in chunks: the audio track once (chunks copy their part of it), then every chunk of
 * every rendition group as its own activity, on any node with a free slot, and the rendition
 * playlists from the chunks' segments. Chunks already done in storage under the same plan (a retry
 * after `failed` with unchanged parameters) are not encoded again.
 */
async function encodeInChunks(
  job: VideoJob,
  probe: SourceProbe,
  ladder: RenditionPlan[],
  chunks: ChunkPlan[],
  runEncode: RunEncode,
  /**
   * Set: the chunks are just-in-time runs. The audio track and the first group's first run go first
   * (ahead of the farm's background work), and `publish` gets that run's renditions; the others
   * follow in playback order, the first group's before the rest (docs/decisions/just-in-time.md).
   */
  publish?: (first: RenditionResult[]) => Promise<void>,
): Promise<{ renditions: RenditionResult[]; audioTrackKey: string | undefined }> {
  const { videoId, storagePath } = job;
  // One decode per chunk makes every rendition; two-pass and single-pass rungs run apart.
  const groups = encodeGroups(ladder);
  const encoding = encodeActivities(
    chunks[0]!.durationSeconds,
    job.parameters.twoPassVBREncoding,
    Math.max(...groups.map((g) => g.length)),
    encodeQueueWaitMinutes,
  );
  const { planId, finished } = await storage.findFinishedChunks({
    videoId,
    plan: { storagePath, sizeBytes: probe.sizeBytes, ladder, chunks },
  });
  log.info('chunks planned', {
    videoId,
    chunks: chunks.length,
    groups: groups.length,
    alreadyDone: Object.keys(finished).length,
  });
  const withAudio = probe.hasAudio && ladder[0]!.audioBitrateKbps > 0;
  // Just in time, the H.264 runs of the first `audioHeadSeconds` do not wait for the audio track:
  // each makes its own audio head, the track up to its end (ChunkEncode.audio_head); later runs
  // copy their part of the track. Workflows started before the audio head replay awaiting the
  // track first, made as urgent work.
  const audioHead = publish !== undefined && withAudio && patched('just-in-time-audio-head');
  const ownAudioHead = (g: number, chunk: ChunkPlan) =>
    audioHead && g === 0 && chunk.startSeconds + chunk.durationSeconds <= audioHeadSeconds;
  // The first run that waits for the track, in any group (other codecs' runs all wait for it).
  const awaiting = chunks.find((chunk) => groups.some((_, g) => !ownAudioHead(g, chunk)));
  const trackPlacement = audioTrackQueueing(ladder, chunks, publish !== undefined, audioHead, awaiting);
  // Its own scope: a failure of the runs cancels it (no upload races the cleanup).
  const trackScope = new CancellationScope();
  const makeAudioTrack = () =>
    trackScope.run(() =>
      runEncode(() =>
        encoding.encodeAudioTrack({
          videoId,
          storagePath,
          rendition: ladder[0]!,
          durationSeconds: probe.durationSeconds,
          probe,
          ...trackPlacement,
          ...nodeLabelsOf(job),
        }),
      ),
    );
  const audioTrack: Promise<string | undefined> = !withAudio
    ? Promise.resolve(undefined)
    : audioHead
      ? makeAudioTrack()
      : Promise.resolve(await makeAudioTrack());
  const measured = measuresQuality(job.parameters) ? qualitySampleChunks(chunks.length) : new Set<number>();
  const runs: ChunkRuns = {
    job,
    probe,
    chunks,
    encoding,
    runEncode,
    finished,
    planId,
    audioTrack,
    ownAudioHead,
    measured,
    publish,
    bootstrapHeads: new Map(),
    bootstrapRestAhead: chunks.some((chunk) => chunk.bootstrap) && patched('bootstrap-second-run-ahead'),
  };
  const done = await allOrCancelRest(
    groups.flatMap((group, g) => chunks.map((chunk) => () => runChunk(runs, group, g, chunk))),
  ).catch(async (error: unknown) => {
    trackScope.cancel();
    await Promise.allSettled([audioTrack]);
    throw error;
  });
  return { renditions: await joinChunks(videoId, ladder, done), audioTrackKey: await audioTrack };
}

/** What every run of a chunked encode shares (encodeInChunks, runChunk). */
interface ChunkRuns {
  job: VideoJob;
  probe: SourceProbe;
  chunks: ChunkPlan[];
  encoding: Encoding;
  runEncode: RunEncode;
  finished: Record<string, EncodeOutcome[]>;
  planId: string;
  audioTrack: Promise<string | undefined>;
  ownAudioHead: (g: number, chunk: ChunkPlan) => boolean;
  measured: Set<number>;
  publish: ((first: RenditionResult[]) => Promise<void>) | undefined;
  /** Each group's first bootstrap run (its first 2 s) encoded, which its second (the 4 s after) follows. */
  bootstrapHeads: Map<number, Promise<void>>;
  /** The second bootstrap run is queued with the first, ahead of background work (patch `bootstrap-second-run-ahead`). */
  bootstrapRestAhead: boolean;
}

/** A promise settled from outside; a rejection nobody waits for is not unhandled. */
function settledLater(): { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/**
 * One run (chunk `chunk` of group `g`): encoded unless a finished record has it; the first run of a
 * just-in-time video publishes it. The second bootstrap run is queued with the first, ahead of the
 * background runs (before patch `bootstrap-second-run-ahead`: once the first is encoded, as urgent
 * as it), and once both are encoded joins the group's first segment from their bootstrap segments.
 */
async function runChunk(runs: ChunkRuns, group: RenditionPlan[], g: number, chunk: ChunkPlan): Promise<ChunkDone> {
  const { job, probe, chunks, encoding, publish } = runs;
  const { videoId, storagePath } = job;
  const recordName = `${g}-${chunk.index}`;
  const first = publish !== undefined && g === 0 && chunk.index === 0;
  const bootstrapRest = chunk.bootstrap === true && chunk.index === 1;
  // Set before the next run of the list starts (allOrCancelRest starts them in order, each up to
  // its first await), settled as soon as this run is encoded, before it is published.
  const head = chunk.bootstrap === true && chunk.index === 0 ? settledLater() : undefined;
  if (head) runs.bootstrapHeads.set(g, head.promise);
  // The second bootstrap run is queued beside the first, the first of the video's background work
  // (the H.264 group's; another codec's follows its own first run in the queue's order): it takes
  // the slot a background run would, at nice 10 beside the first run, and a request for segment 0 or
  // its bootstrap segments raises it. Queued only once the first ended (workflows started before),
  // a background run took the freed slot first and a player without `bootstrap` waited for the two
  // runs one after the other, the second on a busy node.
  const rest = bootstrapRest ? (runs.bootstrapRestAhead ? 'beside' : 'after') : undefined;
  if (rest === 'after') await runs.bootstrapHeads.get(g);
  const audioTrackKey = runs.ownAudioHead(g, chunk) ? undefined : await runs.audioTrack;
  let outcomes: EncodeOutcome[];
  try {
    outcomes =
      runs.finished[recordName] ??
      (await runs.runEncode(() =>
        encoding.encodeChunk({
          videoId,
          storagePath,
          renditions: group,
          durationSeconds: probe.durationSeconds,
          probe,
          chunk,
          last: chunk.index === chunks.length - 1,
          ...(audioTrackKey ? { audioTrackKey } : {}),
          ...(runs.ownAudioHead(g, chunk) ? { audioHead: true as const } : {}),
          planId: runs.planId,
          recordName,
          ...(runs.measured.has(chunk.index) ? { measureQuality: true } : {}),
          ...(publish
            ? {
                justInTime: {
                  rank: g * chunks.length + chunk.index,
                  urgent: first || (g === 0 && rest === 'after'),
                  ...(g === 0 && rest === 'beside' ? { ahead: true as const } : {}),
                },
              }
            : {}),
          ...nodeLabelsOf(job),
          ...watermarkOf(job.parameters),
        }),
      ));
  } catch (error) {
    head?.reject(error);
    throw error;
  }
  head?.resolve();
  // Not cancelled halfway by a sibling's failure: a video made ready has its completed event.
  if (first)
    await CancellationScope.nonCancellable(() => publish(group.map((plan, k) => ({ plan, outcome: outcomes[k]! }))));
  // Its three bootstrap segments made (the first run's too, which may end after this one), the first
  // segment is their concatenation. A second run that goes on through the next run's segments
  // (`bootstrap-rest-with-next-run`) joined it already, once its parts were stored: found done.
  if (rest === 'beside') await runs.bootstrapHeads.get(g);
  if (bootstrapRest) await storage.joinBootstrapSegments({ videoId, renditions: group.map((plan) => plan.key) });
  return { group, chunk, outcomes };
}

/**
 * Where the audio track goes in the encode queue. Whole-farm chunks: as any encode. Just in time
 * with audio heads: nobody waits for it at first, so it is background work, first in its video's
 * playback order, and a request for a segment of a run that waits for it (`awaiting` on, in every
 * rendition) raises it. Just in time without heads (workflows started before them): urgent.
 */
function audioTrackQueueing(
  ladder: RenditionPlan[],
  chunks: ChunkPlan[],
  justInTime: boolean,
  audioHead: boolean,
  awaiting: ChunkPlan | undefined,
) {
  if (!justInTime) return {};
  if (!audioHead) return { urgent: true };
  if (!awaiting) return { justInTime: {} };
  const lastRun = chunks[chunks.length - 1]!;
  const segmentTotal = lastRun.firstSegment + lastRun.segmentCount;
  return {
    justInTime: {
      awaiting: {
        renditions: ladder.map((plan) => plan.key),
        firstSegment: awaiting.firstSegment,
        segmentCount: segmentTotal - awaiting.firstSegment,
      },
    },
  };
}

/**
 * Each rendition's chunks in order: their segments run on, and make its playlist (written here)
 * and its measurements (peak and average bandwidth of its segments, counts summed, quality meaned).
 */
async function joinChunks(videoId: string, ladder: RenditionPlan[], done: ChunkDone[]): Promise<RenditionResult[]> {
  const joined = ladder.map((plan) => {
    const parts: EncodeOutcome[] = done
      .filter((d) => d.group.includes(plan))
      .sort((a, b) => a.chunk.index - b.chunk.index)
      .map((d) => d.outcomes[d.group.indexOf(plan)]!);
    return { plan, parts, ...withBootstrapJoined(parts.flatMap((part) => part.segments ?? [])) };
  });
  await storage.writeRenditionPlaylists({
    videoId,
    renditions: joined.map(({ plan, segments, bootstrap }) => ({
      key: plan.key,
      shortEdgePixels: plan.shortEdgePixels,
      segments: segments.map(({ name, durationSeconds }) => ({ name, durationSeconds })),
      ...(bootstrap.length > 0 ? { bootstrap } : {}),
    })),
  });
  return joined.map(({ plan, parts, segments }): RenditionResult => {
    const bandwidth = measureBandwidth(segments);
    const { segments: _perChunk, quality: _chunkQuality, ...first } = parts[0]!;
    const quality = meanQuality(parts);
    return {
      plan,
      outcome: {
        ...first,
        bandwidth: bandwidth.peakBitsPerSecond || first.bandwidth,
        averageBandwidth: bandwidth.averageBitsPerSecond || first.averageBandwidth,
        segmentCount: segments.length,
        frameCount: parts.reduce((sum, part) => sum + part.frameCount, 0),
        bytesWritten: parts.reduce((sum, part) => sum + part.bytesWritten, 0),
        ...(quality ? { quality } : {}),
      },
    };
  });
}

/**
 * The video's watermark, for an encode of its pictures (issue 57): every rendition, whole or in
 * chunks, just in time or not, carries it; none for the audio track.
 */
export function watermarkOf(parameters: EncodingParameters): { watermark?: Watermark } {
  return parameters.watermark ? { watermark: parameters.watermark } : {};
}

/**
 * A rendition's segments as its runs made them, the bootstrap segments (hlsBootstrapName, first)
 * counted as the first segment they join into (joinBootstrapSegments) and listed apart for the
 * bootstrap playlist.
 */
function withBootstrapJoined(made: SegmentOutcome[]): { segments: SegmentOutcome[]; bootstrap: PlaylistSegment[] } {
  const parts = made.filter((segment) => isHlsBootstrapName(segment.name));
  if (parts.length === 0) return { segments: made, bootstrap: [] };
  const first: SegmentOutcome = {
    name: hlsSegmentName(0),
    durationSeconds: Math.round(parts.reduce((sum, part) => sum + part.durationSeconds, 0) * 1e6) / 1e6,
    sizeBytes: parts.reduce((sum, part) => sum + part.sizeBytes, 0),
  };
  return {
    segments: [first, ...made.slice(parts.length)],
    bootstrap: parts.map(({ name, durationSeconds }) => ({ name, durationSeconds })),
  };
}

/** The labels the video's encode nodes must carry, for an encode's input; none: any node (issue 54). */
function nodeLabelsOf(job: VideoJob): { nodeLabels?: string[] } {
  const labels = job.parameters.nodeLabels ?? [];
  return labels.length > 0 ? { nodeLabels: labels } : {};
}

/**
 * The source's range for a thumbnail or storyboard job, when it is HDR: an SDR source's inputs stay
 * as they were before (and as the histories of its workflows recorded them).
 */
function hdrOf(probe: SourceProbe): { dynamicRange?: string } {
  const hdr = sourceHdrOf(probe);
  return hdr ? { dynamicRange: hdr } : {};
}

/**
 * The default thumbnail. A video without one still plays, so its failure is not the video's: this
 * never rejects (a cancelled workflow is cancelled through its encodes).
 */
async function makeThumbnail(job: VideoJob, probe: SourceProbe): Promise<string | null> {
  try {
    return await waitForNodeThenRun({ freeSlot: false }, () =>
      thumbnails.makeThumbnail({
        videoId: job.videoId,
        storagePath: job.storagePath,
        timestampSeconds: probe.durationSeconds * thumbnailPosition,
        ...hdrOf(probe),
      }),
    );
  } catch (error) {
    if (!isCancellation(error))
      log.warn('no default thumbnail', { videoId: job.videoId, reason: describeFailure(error) });
    return null;
  }
}

/** The storyboard: like the default thumbnail, its failure is not the video's (never rejects). */
async function makeStoryboard(job: VideoJob, probe: SourceProbe): Promise<string | null> {
  try {
    return await waitForNodeThenRun({ freeSlot: false }, () =>
      storyboards.makeStoryboard({
        videoId: job.videoId,
        storagePath: job.storagePath,
        durationSeconds: probe.durationSeconds,
        ...hdrOf(probe),
      }),
    );
  } catch (error) {
    if (!isCancellation(error)) log.warn('no storyboard', { videoId: job.videoId, reason: describeFailure(error) });
    return null;
  }
}

/**
 * Runs `work` on an encode node: waits (without limit) until a node is online (with a free slot for
 * an encode), then runs it. If the work still found no node after its own retries (raced by other
 * videos, or the node left), waits again.
 */
export async function waitForNodeThenRun<T>({ freeSlot }: { freeSlot: boolean }, work: () => Promise<T>): Promise<T> {
  for (;;) {
    await capacity.waitForNodeCapacity({ freeSlot });
    try {
      return await work();
    } catch (error) {
      if (failureType(error) === failureTypes.noNodeAvailable) continue;
      throw error;
    }
  }
}

/**
 * Runs an encode, which waits for its slot in the encode queue (first come, fair across videos) and
 * starts as soon as one frees anywhere in the farm. An encode that waited its whole turn without a
 * slot (no node for a long while) waits for a live node here, then queues again.
 */
export async function queueThenRun<T>(work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (failureType(error) !== failureTypes.noNodeAvailable) throw error;
      await capacity.waitForNodeCapacity({ freeSlot: false });
    }
  }
}

/**
 * Promise.all over jobs that each run in one cancellation scope: when one fails for good, the
 * others are cancelled (their nodes stop) and awaited, so cleanup never races their uploads.
 */
export async function allOrCancelRest<T>(jobs: Array<() => Promise<T>>): Promise<T[]> {
  const scope = new CancellationScope();
  const running = jobs.map((job) => scope.run(job));
  try {
    return await Promise.all(running);
  } catch (error) {
    scope.cancel();
    await Promise.allSettled(running);
    throw error;
  }
}

/**
 * Webhooks go out from their own workflow: a slow or dead endpoint never holds the video back.
 * `data` is the video's details as GET details answers them, read after the change (histories
 * recorded before the `webhook-video-details` patch carried the short `recordedData` instead).
 */
export async function notify(
  event: 'video.processing.completed' | 'video.processing.failed',
  videoId: string,
  status: 'ready' | 'failed',
  recordedData: Record<string, unknown>,
): Promise<void> {
  const timestamp = new Date().toISOString();
  let data = recordedData;
  if (patched('webhook-video-details')) {
    try {
      const details = await database.videoDetails({ videoId });
      if (!details) return;
      data = details;
    } catch (error) {
      log.error('could not read the details of a webhook event', { videoId, event, error: String(error) });
      return;
    }
  }
  const payload: VideoWebhookPayload = { event, videoId, status, timestamp, data };
  try {
    await startChild(deliverWebhooks, {
      workflowId: workflowIds.deliverWebhooks(payload.videoId, uuid4()),
      args: [{ payload }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (error) {
    log.error('could not start webhook delivery', {
      videoId: payload.videoId,
      event: payload.event,
      error: String(error),
    });
  }
}

/** The type of an activity's ApplicationFailure (failureTypes), if it failed with one. */
export function failureType(error: unknown): string | undefined {
  return error instanceof ActivityFailure && error.cause instanceof ApplicationFailure
    ? (error.cause.type ?? undefined)
    : undefined;
}

/** The reason shown for a failed video: the innermost message, which says what went wrong. */
export function describeFailure(error: unknown): string {
  // A child's failure says only that it failed: its cause says why.
  if (error instanceof ChildWorkflowFailure && error.cause) return describeFailure(error.cause);
  if (error instanceof ActivityFailure) {
    const what = error.activityType ?? 'activity';
    if (error.cause instanceof TimeoutFailure) return `${what} timed out (${error.cause.timeoutType})`;
    if (error.cause instanceof ApplicationFailure) return error.cause.message;
    return error.cause?.message ?? error.message;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}
