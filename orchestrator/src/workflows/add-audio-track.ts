// addAudioTrack: a track added to a ready video (POST /{orgID}/videos/{publicID}/audio-tracks;
// docs/decisions/encoding.md#audio). One run per track (id `audio-track:{videoId}:{renditionKey}`):
// probe the uploaded file on a node, encode its first audio stream as an alternate audio rendition
// (the source tracks' job: started at 0, padded or cut to the video's duration, the video's
// segment length), then record it and make the track `ready` in one transaction, from which
// delivery's master names it. Any failure makes the track `failed` with its reason; the video is
// untouched either way.
import { ApplicationFailure, executeChild, isCancellation, log } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { workflowIds, type AddAudioTrackInput } from '@kino/proto/contract';
import { planAddedAudio } from '../ladder.ts';
import { encodeQueueWaitMinutes, failureTypes } from '../activity-types.ts';
import {
  database,
  describeFailure,
  encodeActivities,
  probing,
  queueThenRun,
  waitForNodeThenRun,
} from './process-video.ts';
import { separateSound } from './separate-sound.ts';

export type AddAudioTrackResult = { status: 'ready' } | { status: 'failed' | 'skipped'; reason: string };

export async function addAudioTrack({
  videoId,
  language,
  renditionKey,
}: AddAudioTrackInput): Promise<AddAudioTrackResult> {
  const job = await database.loadAudioTrackJob({ videoId, language, renditionKey });
  if (!job) return { status: 'skipped', reason: 'the track was replaced or removed, or the video is not ready' };
  try {
    const probe = await waitForNodeThenRun({ freeSlot: false }, () =>
      probing.probeSource({ videoId, storagePath: job.storagePath }),
    );
    if (!probe.hasAudio)
      throw ApplicationFailure.nonRetryable('the file has no audio stream', failureTypes.invalidSource);
    const plan = planAddedAudio(
      job.parameters,
      renditionKey,
      {
        language,
        name: job.name,
        isDefault: job.isDefault,
        channels: probe.audioTracks?.[0]?.channels ?? probe.audioChannels ?? 2,
      },
      job.durationSeconds,
    );
    // An audio encode takes seconds a minute of sound: one rendition, no second pass.
    const encoding = encodeActivities(job.durationSeconds, false, 1, encodeQueueWaitMinutes);
    const encoded = queueThenRun(() =>
      encoding.encodeRenditions({
        videoId,
        storagePath: job.storagePath,
        renditions: [plan],
        durationSeconds: job.durationSeconds,
        probe,
      }),
    );
    // Beside it, a video whose sound is in its pictures has it separated (once: another track's run
    // may be at it); the track is offered once the video's master has the audio group.
    const [[outcome]] = await Promise.all([encoded, job.soundInPictures ? soundSeparated(videoId) : undefined]);
    const marked = await database.markAudioTrackReady({ videoId, language, result: { plan, outcome: outcome! } });
    if (!marked) return { status: 'skipped', reason: 'the track was replaced or removed while it was made' };
    log.info('audio track ready', { videoId, language, key: renditionKey });
    return { status: 'ready' };
  } catch (error) {
    if (isCancellation(error)) throw error;
    const reason = describeFailure(error);
    await database.markAudioTrackFailed({ videoId, language, renditionKey, reason });
    return { status: 'failed', reason };
  }
}

/**
 * Separates the video's sound from its pictures (separateSound) in a child of one id per video, so
 * that two tracks added at once make it once: when another track's run has it running, this one
 * goes on without waiting (its track is offered once that run switches the master). A failed
 * separation fails the track, with its reason; the next track added tries again.
 */
async function soundSeparated(videoId: string): Promise<void> {
  try {
    await executeChild(separateSound, { workflowId: workflowIds.separateSound(videoId), args: [{ videoId }] });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return;
    throw error;
  }
}
