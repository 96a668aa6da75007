// makeFrameAccurateClip: a frame-accurate clip (docs/decisions/delivery.md#clips) from `transcoding`
// to `ready`. Its first and last segments are encoded again for every rendition, from the source's
// original upload and with the source's ladder (the same settings, so they play with the source's
// init segment and line up with the segments between, which stay the source's); then the clip's
// playlists name them with the source's segments between, and the clip is ready. The workflow id is
// the clip's processing id (`video:{id}`): deleting the clip cancels it like any processing.
import { CancellationScope, isCancellation, log } from '@temporalio/workflow';
import { hlsSegmentName, type MakeFrameAccurateClipInput } from '@kino/proto/contract';
import type { ChunkPlan } from '../chunks.ts';
import { encodeGroups, isAlternateAudioPlan, planLadder, type RenditionPlan } from '../ladder.ts';
import { encodeQueueWaitMinutes, type EncodeOutcome, type SourceProbe, type VideoJob } from '../activity-types.ts';
import { liveLadder } from './live-broadcast.ts';
import {
  allOrCancelRest,
  database,
  describeFailure,
  encodeActivities,
  notify,
  probing,
  queueThenRun,
  storage,
  waitForNodeThenRun,
  watermarkOf,
} from './process-video.ts';

export type MakeFrameAccurateClipResult = { status: 'ready' } | { status: 'failed' | 'skipped'; reason: string };

export async function makeFrameAccurateClip({
  videoId,
  sourceVideoId,
  cuts,
}: MakeFrameAccurateClipInput): Promise<MakeFrameAccurateClipResult> {
  const [clip, source] = await Promise.all([database.loadVideoJob(videoId), database.loadVideoJob(sourceVideoId)]);
  if (!clip || clip.deleted) return { status: 'skipped', reason: 'clip deleted' };
  if (clip.status !== 'transcoding') return { status: 'skipped', reason: `clip is ${clip.status}, not transcoding` };
  const durationSeconds = cuts.at(-1)! - cuts[0]!;
  try {
    if (!source) throw new Error(`the source video ${sourceVideoId} is not found`);
    const lastSegment = cuts.length - 2;
    const { windows, probe } = await planClipWindows({ videoId, sourceVideoId, source, cuts });
    const ladder = clipLadder(source, probe);
    // Alternate audio renditions are cut on the audio's own 6 s grid, not the picture's cuts, and
    // nodes do not encode a window of one: not made yet (a failed clip says so).
    if (ladder.some(isAlternateAudioPlan))
      throw new Error('a frame-accurate clip of a video with several audio tracks cannot be made yet');
    const groups = encodeGroups(ladder);
    const encoding = encodeActivities(
      Math.max(...windows.map((w) => w.durationSeconds)),
      source.parameters.twoPassVBREncoding,
      Math.max(...groups.map((g) => g.length)),
      encodeQueueWaitMinutes,
    );
    const done = await allOrCancelRest(
      groups.flatMap((group, g) =>
        windows.map((window) => async () => {
          const { input, ...chunk } = window;
          const outcomes = await queueThenRun(() =>
            encoding.encodeChunk({
              videoId,
              storagePath: input,
              renditions: group,
              durationSeconds: probe.durationSeconds,
              probe,
              chunk,
              last: false,
              // The source's watermark: the re-encoded ends match the segments the clip copies.
              ...watermarkOf(source.parameters),
              // No audio track: the node encodes the source's audio for the window with the picture.
              planId: 'clip',
              recordName: `${g}-${window.index}`,
            }),
          );
          return { group, window, outcomes };
        }),
      ),
    );
    const encodedSegment = (plan: RenditionPlan, segment: number): { name: string; durationSeconds: number } => {
      const found = done.find((d) => d.window.firstSegment === segment && d.group.includes(plan))!;
      const outcome: EncodeOutcome = found.outcomes[found.group.indexOf(plan)]!;
      const segments = outcome.segments ?? [];
      if (segments.length !== 1)
        throw new Error(
          `the ${plan.key} encode of the clip's segment ${segment} made ${segments.length} segments, not 1`,
        );
      return { name: segments[0]!.name, durationSeconds: segments[0]!.durationSeconds };
    };
    await storage.writeRenditionPlaylists({
      videoId,
      renditions: ladder.map((plan) => ({
        key: plan.key,
        shortEdgePixels: plan.shortEdgePixels,
        segments: cuts
          .slice(0, -1)
          .map((start, segment) =>
            segment === 0 || segment === lastSegment
              ? encodedSegment(plan, segment)
              : { name: hlsSegmentName(segment), durationSeconds: cuts[segment + 1]! - start },
          ),
      })),
    });
    // The encodes' records (work/): a ready video's files are all its own.
    await storage.removeWorkFiles({ videoId });
    const marked = await database.markClipReady({
      videoId,
      sourceVideoId,
      durationSeconds,
      segmentCount: cuts.length - 1,
    });
    if (!marked) {
      await storage.removeVideoOutputs({ videoId });
      return { status: 'skipped', reason: 'clip deleted while it was encoded' };
    }
    log.info('clip ready', { videoId, sourceVideoId, segments: cuts.length - 1 });
    await notify('video.processing.completed', videoId, 'ready', {
      durationSeconds,
      renditions: ladder.map((plan) => plan.key),
    });
    return { status: 'ready' };
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() => storage.removeVideoOutputs({ videoId }));
      throw error;
    }
    const reason = describeFailure(error);
    log.warn('clip failed', { videoId, reason });
    await storage.removeVideoOutputs({ videoId });
    await database.markVideoFailed({ videoId, reason });
    await notify('video.processing.failed', videoId, 'failed', { reason });
    return { status: 'failed', reason };
  }
}

/**
 * The windows encoded again, the first segment (from startTime) and the last (to endTime), or the
 * one segment of a clip inside one of the source's, each with the input it reads, and the probe of
 * the first. `index` is never 0: chunk 0 writes an init segment, and the clip plays its source's.
 * The input is the original upload, not a rendition: no generation loss, and the same input as the
 * segments between were encoded from. It goes with the source, so a source deleted before this ran
 * fails the clip here (the probe finds no file). A broadcast's recording has none: each window
 * reads the recording's segment holding it, from its top rendition (docs/decisions/live.md).
 */
async function planClipWindows({
  videoId,
  sourceVideoId,
  source,
  cuts,
}: {
  videoId: string;
  sourceVideoId: string;
  source: VideoJob;
  cuts: number[];
}): Promise<{ windows: (ChunkPlan & { input: string })[]; probe: SourceProbe }> {
  const encoded = [...new Set([0, cuts.length - 2])];
  const inputs = source.liveLatency
    ? await storage.writeRecordingWindowInputs({
        videoId,
        sourceVideoId,
        startsSeconds: encoded.map((segment) => cuts[segment]!),
      })
    : encoded.map(() => ({ key: source.storagePath, offsetSeconds: 0 }));
  const probe = await waitForNodeThenRun({ freeSlot: false }, () =>
    probing.probeSource({ videoId, storagePath: inputs[0]!.key }),
  );
  const windows = encoded.map((segment, k) => ({
    index: k + 1,
    startSeconds: cuts[segment]!,
    durationSeconds: cuts[segment + 1]! - cuts[segment]!,
    firstSegment: segment,
    segmentCount: 1,
    input: inputs[k]!.key,
    ...(source.liveLatency ? { inputOffsetSeconds: inputs[k]!.offsetSeconds, inputIsSegment: true as const } : {}),
  }));
  return { windows, probe };
}

/**
 * The clip's ladder: its source's, as planned from the source's probe. A broadcast's recording was
 * planned as a live ladder (its H.264 picture rungs, one pass: live-broadcast.ts), from a probe of
 * the broadcast; its top rung has the source's size capped by the preset, so planning from it gives
 * the same rungs.
 */
function clipLadder(source: VideoJob, probe: SourceProbe): RenditionPlan[] {
  const ladder = planLadder(source.quality, probe, source.parameters);
  if (!source.liveLatency) return ladder;
  // A low-latency recording's segments and init segment are a low-delay encoder's: the ends encoded
  // again must be too, or they do not decode with that init segment (x264 writes other parameter sets).
  return source.liveLatency === 'low'
    ? liveLadder(ladder).map((plan) => ({ ...plan, lowDelay: true as const }))
    : liveLadder(ladder);
}
