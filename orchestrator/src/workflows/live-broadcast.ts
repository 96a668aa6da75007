// liveBroadcast: one workflow per broadcast (id `live:{videoId}`), started by `kino ingest` when a
// publisher is admitted (issue 56, docs/decisions/live.md). A node probes the broadcast through the
// ingest's relay; the ladder is planned as a file's (the stream's preset, capped at the source), one
// pass; one node encodes it for the broadcast's length, its slot leased for all of it, the files
// stored as they close (the video plays live as soon as every rung has started). When the publisher
// is gone the playlists end (EXT-X-ENDLIST) and the recording becomes an ordinary on-demand video:
// its thumbnail and storyboard read from its top rendition, its measured master, `ready`. Nothing is
// encoded again. A node lost mid-broadcast (or the orchestrator worker holding its call) costs a gap,
// not the broadcast: another node takes it over at once, going on from what is stored after
// EXT-X-DISCONTINUITY (live.md "Node takeover"). A low-latency broadcast's ended playlists keep
// listing their last parts for three target durations (a player at the live edge is loading them),
// then are written without parts (live.md "The end of a broadcast").
import {
  ActivityFailure,
  ActivityCancellationType,
  isCancellation,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  sleep,
  startChild,
  TimeoutFailure,
  uuid4,
} from '@temporalio/workflow';
import {
  endedPartsKeptSeconds,
  hlsLivePartSeconds,
  isAacAudioCodec,
  workflowIds,
  type LiveBroadcastInput,
} from '@kino/proto/contract';
import type { Activities } from '../activities/index.ts';
import { isAlternateAudioPlan, isAudioOnlyPlan, planLadder, type RenditionPlan } from '../ladder.ts';
import { masterVariantOf } from '../master-playlist.ts';
import {
  activityHeartbeatTimeoutSeconds,
  encodeQueueWaitMinutes,
  failureTypes,
  type EncodeOutcome,
  type RenditionResult,
  type SourceProbe,
} from '../activity-types.ts';
import {
  database,
  describeFailure,
  encodeActivities,
  failureType,
  notify,
  probing,
  queueThenRun,
  storage,
  storyboards,
  thumbnails,
  waitForNodeThenRun,
} from './process-video.ts';
import { deliverWebhooks } from './deliver-webhooks.ts';
import type { LiveEncodeInput } from '../jobs/live.ts';

/**
 * The live probe and the live encode. The encode runs as long as the broadcast: its start-to-close
 * budget is a day, its heartbeat what every long activity's is. Each call is tried once: a node lost
 * is taken over by the workflow's own loop (encodeBroadcast), which calls again with `resume`, at
 * once, so each takeover is an event of the history and a replay takes the same turns.
 */
const live = proxyActivities<Activities>({
  startToCloseTimeout: '24 hours',
  heartbeatTimeout: `${activityHeartbeatTimeoutSeconds} seconds`,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { maximumAttempts: 1 },
});

export type LiveBroadcastResult =
  { status: 'ready'; renditions: string[]; durationSeconds: number } | { status: 'failed'; reason: string };

export async function liveBroadcast({
  videoId,
  liveStreamId,
  sourceUrl,
  probeUrl,
  startedAtMs,
}: LiveBroadcastInput): Promise<LiveBroadcastResult> {
  const job = await database.loadVideoJob(videoId);
  if (!job) return { status: 'failed', reason: 'video not found' };
  try {
    const probe = await waitForNodeThenRun({ freeSlot: false }, () =>
      probing.probeLiveSource({ videoId, sourceUrl: probeUrl }),
    );
    const ladder = liveLadder(planLadder(job.quality, probe, job.parameters));
    log.info('broadcast ladder planned', { videoId, renditions: ladder.map((r) => `${r.key} ${r.width}x${r.height}`) });
    const partSeconds = job.liveLatency === 'low' ? hlsLivePartSeconds : undefined;
    // Workflows started before this patch end their playlists without parts and remove them at once.
    const keepEndedParts = partSeconds !== undefined && patched('ended-parts-kept');
    const outcomes = await encodeBroadcast(liveStreamId, {
      videoId,
      sourceUrl,
      renditions: ladder,
      probe,
      ...(partSeconds ? { partSeconds } : {}),
      ...(startedAtMs ? { broadcastStartedAtMs: startedAtMs } : {}),
      ...(keepEndedParts ? { keepEndedParts } : {}),
    });
    // Counted from the end, beside the recording's work: `ready` is not held back by it.
    const partsKept = keepEndedParts
      ? sleep(endedPartsKeptSeconds(Math.max(...ladder.map((plan) => plan.segmentSeconds))) * 1000)
      : undefined;
    const result = await finishRecording(videoId, probe, ladder, outcomes);
    if (result.status === 'ready') await notifyRecordingReady(liveStreamId, videoId);
    if (partsKept) {
      await partsKept;
      await storage.endKeptParts({ videoId, renditions: ladder.map((plan) => plan.key) });
    }
    return result;
  } catch (error) {
    if (isCancellation(error)) throw error;
    const reason = describeFailure(error);
    await database.markVideoFailed({ videoId, reason });
    await notify('video.processing.failed', videoId, 'failed', { reason });
    return { status: 'failed', reason };
  }
}

/** A broadcast taken over more often than this fails: a node failing every attempt must not loop for ever. */
const maxTakeovers = 20;

/**
 * The broadcast encoded for its whole length, on one node after another: when the node holding it is
 * lost (or its ffmpeg fails, or the worker holding its call: the heartbeat's timeout), another takes
 * it over at once, going on from what is stored (`resume`). When the publisher went while no node
 * held it, the recording ends from what is stored.
 */
async function encodeBroadcast(liveStreamId: string, input: LiveEncodeInput): Promise<EncodeOutcome[]> {
  const { videoId } = input;
  for (let takeovers = 0; ; takeovers++) {
    try {
      return await queueThenRun(() => live.encodeLive(takeovers === 0 ? input : { ...input, resume: true }));
    } catch (error) {
      if (isCancellation(error) || !takesOver(error) || takeovers >= maxTakeovers) throw error;
      const reason = describeFailure(error);
      if (!(await database.broadcastRuns({ videoId, liveStreamId }))) {
        log.warn('broadcast lost its node after its publisher went: the recording ends as stored', { videoId, reason });
        return storage.endStoredBroadcast({ ...input, resume: true });
      }
      log.warn('broadcast lost its node: another takes it over', { videoId, takeover: takeovers + 1, reason });
    }
  }
}

/** A failure of a live encode that another node's attempt may not have: the node's, not the broadcast's. */
function takesOver(error: unknown): boolean {
  if (!(error instanceof ActivityFailure)) return false;
  if (error.cause instanceof TimeoutFailure) return error.cause.timeoutType === 'HEARTBEAT';
  const type = failureType(error);
  return (
    type === failureTypes.nodeLost || type === failureTypes.nodeWorkFailed || type === failureTypes.storageUnavailable
  );
}

/**
 * A broadcast's ladder: the H.264 picture rungs, one pass (a live input is read once). Its sound
 * is muxed in each rung (a publisher sends one track).
 */
export function liveLadder(ladder: RenditionPlan[]): RenditionPlan[] {
  const pictures = ladder.filter((plan) => !isAlternateAudioPlan(plan) && !isAudioOnlyPlan(plan));
  return pictures.filter((plan) => (plan.videoCodec ?? 'h264') === 'h264').map((plan) => ({ ...plan, twoPass: false }));
}

/**
 * The recording as an on-demand video: its duration from its top rung's segments, its thumbnail,
 * storyboard and `audio.m4a` read from that rung (through a playlist naming its files by presigned
 * URLs), the master with the rates measured, `ready`. A thumbnail, storyboard or audio download that
 * fails leaves the video without it.
 * The thumbnail is the first frame, not the tenth of the way an upload's is: Debian's ffmpeg 5.1
 * cannot seek into an fMP4 HLS input (`-ss` before `-i` loses the init segment: every frame fails
 * to decode), and the thumbnail job seeks so (live.md, what follows).
 */
async function finishRecording(
  videoId: string,
  liveProbe: SourceProbe,
  ladder: RenditionPlan[],
  outcomes: EncodeOutcome[],
): Promise<LiveBroadcastResult> {
  const results: RenditionResult[] = ladder.map((plan, k) => ({ plan, outcome: outcomes[k]! }));
  const top = results[results.length - 1]!;
  const durationSeconds = (top.outcome.segments ?? []).reduce((sum, s) => sum + s.durationSeconds, 0);
  if (!(durationSeconds > 0)) throw new Error('the broadcast recorded no segment');
  const probe: SourceProbe = {
    ...liveProbe,
    durationSeconds,
    videoDurationSeconds: durationSeconds,
    frameCount: top.outcome.frameCount,
  };
  const recording = await storage.writePictureCopyInput({ videoId, original: top.plan.key });
  const [thumbnailKey, storyboardKey, audioKey] = await Promise.all([
    picture('thumbnail', videoId, () =>
      thumbnails.makeThumbnail({
        videoId,
        storagePath: recording,
        timestampSeconds: 0,
      }),
    ),
    picture('storyboard', videoId, () =>
      storyboards.makeStoryboard({ videoId, storagePath: recording, durationSeconds }),
    ),
    probe.hasAudio ? audioDownload(videoId, recording, top.plan, probe) : null,
  ]);
  await storage.removeWorkFiles({ videoId });
  await storage.writeMasterPlaylist({
    videoId,
    variants: results.map(({ plan, outcome }) => masterVariantOf(plan, outcome)),
  });
  const marked = await database.markVideoReady({
    videoId,
    probe,
    renditions: results,
    thumbnailKey,
    storyboardKey,
    audioKey,
  });
  if (!marked) {
    await storage.removeVideoOutputs({ videoId });
    return { status: 'failed', reason: 'the video was deleted while broadcasting' };
  }
  await notify('video.processing.completed', videoId, 'ready', {
    durationSeconds,
    renditions: ladder.map((p) => p.key),
  });
  return { status: 'ready', renditions: ladder.map((p) => p.key), durationSeconds };
}

/**
 * `live_stream.recording.ready` (its `videoId` the recording), after `video.processing.completed`.
 * Added at the workflow's end, so a broadcast started before it replays as it ran and sends it too.
 */
async function notifyRecordingReady(liveStreamId: string, videoId: string): Promise<void> {
  try {
    const payload = await database.liveStreamEvent({ event: 'live_stream.recording.ready', liveStreamId, videoId });
    if (!payload) return;
    await startChild(deliverWebhooks, {
      workflowId: workflowIds.deliverWebhooks(videoId, uuid4()),
      args: [{ payload }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.error('could not send live_stream.recording.ready', { videoId, liveStreamId, error: String(error) });
  }
}

/**
 * `audio.m4a` from the recording's top rung (`recording`, its playlist of presigned URLs): the
 * rung's sound copied when it is AAC (as the ladder writes it unless the preset says otherwise), an
 * AAC encode of it otherwise. The input is the rung, not the publisher's stream, so its audio codec
 * is the rung's. Its failure is not the video's.
 */
async function audioDownload(
  videoId: string,
  recording: string,
  rung: RenditionPlan,
  probe: SourceProbe,
): Promise<string | null> {
  const encoding = encodeActivities(probe.durationSeconds, false, 1, encodeQueueWaitMinutes);
  const rungProbe = { ...probe, audioCodec: isAacAudioCodec(rung.audioCodec) ? 'aac' : rung.audioCodec };
  try {
    return await queueThenRun(() =>
      encoding.makeAudioDownload({ videoId, storagePath: recording, rendition: rung, probe: rungProbe }),
    );
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn('no audio download', { videoId, reason: describeFailure(error) });
    return null;
  }
}

/** A picture of the recording (thumbnail, storyboard): its failure is not the video's. */
async function picture(what: string, videoId: string, make: () => Promise<string>): Promise<string | null> {
  try {
    return await waitForNodeThenRun({ freeSlot: false }, make);
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn(`no ${what}`, { videoId, reason: describeFailure(error) });
    return null;
  }
}
