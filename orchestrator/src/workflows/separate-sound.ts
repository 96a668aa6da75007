// separateSound: a video whose sound is muxed in its pictures (a source with one track) made ready for
// alternate audio tracks, once per video (workflowIds.separateSound), when the first track is
// added to it (docs/decisions/encoding.md#audio). Its sound becomes the alternate rendition `0p-a1`
// (the source's first audio stream, as a source's several tracks are made), each picture rendition
// is copied without its sound (`720p-v`: no encode, the same keyframes, so the same cuts), and a
// second master names those with the audio group; the video's row then points at it, in the
// transaction that records the renditions. The first master and its renditions stay: viewers
// playing them keep them, and caches hold them as immutable.
import { ApplicationFailure, log } from '@temporalio/workflow';
import { encodeQueueWaitMinutes, failureTypes, type RenditionResult } from '../activity-types.ts';
import { planSourceSound } from '../ladder.ts';
import {
  allOrCancelRest,
  database,
  encodeActivities,
  probing,
  queueThenRun,
  storage,
  waitForNodeThenRun,
} from './process-video.ts';

export interface SeparateSoundInput {
  videoId: string;
}

export async function separateSound({ videoId }: SeparateSoundInput): Promise<{ separated: boolean }> {
  const job = await database.loadSoundSeparationJob({ videoId });
  if (!job) return { separated: false };
  const probe = await waitForNodeThenRun({ freeSlot: false }, () =>
    probing.probeSource({ videoId, storagePath: job.storagePath }),
  );
  const track = probe.audioTracks?.[0];
  if (!probe.hasAudio || !track)
    throw ApplicationFailure.nonRetryable("the video's source has no audio stream", failureTypes.invalidSource);
  const sound = planSourceSound(job.parameters, track, job.durationSeconds);
  // A copy moves bytes at the speed of storage, an audio encode runs hundreds of times real time:
  // one rendition per call, every call a single pass.
  const encoding = encodeActivities(job.durationSeconds, false, 1, encodeQueueWaitMinutes);
  const made = async (storagePath: string, plan: typeof sound): Promise<RenditionResult> => {
    const [outcome] = await queueThenRun(() =>
      encoding.encodeRenditions({
        videoId,
        storagePath,
        renditions: [plan],
        durationSeconds: job.durationSeconds,
        probe,
      }),
    );
    return { plan, outcome: outcome! };
  };
  const [soundResult, ...copies] = await allOrCancelRest([
    () => made(job.storagePath, sound),
    ...job.copies.map((copy) => async () => {
      const input = await storage.writePictureCopyInput({ videoId, original: copy.key.slice(0, -'-v'.length) });
      return made(input, copy);
    }),
  ]);
  const separated = await storage.finishSoundSeparation({
    videoId,
    sound: soundResult!,
    copies,
    videoRanges: job.videoRanges,
  });
  log.info('sound separated from the pictures', { videoId, separated, copies: copies.map((c) => c.plan.key) });
  return { separated };
}
