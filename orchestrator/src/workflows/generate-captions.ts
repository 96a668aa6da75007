// generateCaptions: a caption track made from a ready video's speech (POST .../captions/generate, or
// a process call's `generatedSubtitles` once its video is ready; docs/decisions/captions.md). One run
// per video and asked language at a time (id `captions:{videoId}:{language}`): nodes whose speech
// engine has the language transcribe the video's sound (a long video in pieces, each on any node, all
// at once), the pieces' words are joined and cut into one WebVTT file, then the track is put in place
// of the language's track, `source: generated`, and `video.caption.ready` goes out. A failure leaves the video and its
// other tracks as they were; the run answers why.
import {
  ParentClosePolicy,
  isCancellation,
  log,
  proxyActivities,
  startChild,
  uuid4,
  ActivityCancellationType,
} from '@temporalio/workflow';
import {
  workflowIds,
  type GenerateCaptionsInput,
  type TranscriptPiece,
  type VideoWebhookPayload,
} from '@kino/proto/contract';
import type { Activities } from '../activities/index.ts';
import { activityHeartbeatTimeoutSeconds, failureTypes } from '../activity-types.ts';
import { database, describeFailure } from './process-video.ts';
import { deliverWebhooks } from './deliver-webhooks.ts';

/**
 * A piece's transcription waits in the encode queue like an encode (heartbeating while it waits), then
 * runs for a fraction of the piece's length: a long start-to-close, a short heartbeat timeout, and five
 * attempts (a node lost mid-job is one, and the next starts on another node at once).
 */
const transcribing = proxyActivities<Activities>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: `${activityHeartbeatTimeoutSeconds} seconds`,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [failureTypes.invalidSource],
  },
});

/** The join reads each piece's words and writes one file: a few megabytes for hours of speech. */
const joining = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

export type GenerateCaptionsResult =
  | { status: 'ready'; language: string; cues: number; pieces: number }
  | { status: 'failed' | 'skipped'; reason: string };

export async function generateCaptions({
  videoId,
  language,
  label,
}: GenerateCaptionsInput): Promise<GenerateCaptionsResult> {
  const job = await database.loadCaptionJob({ videoId });
  if (!job) return { status: 'skipped', reason: 'the video is gone or not ready' };
  try {
    const run = uuid4();
    const transcribe = (piece: TranscriptPiece, pieceLanguage: string) =>
      transcribing.transcribeSpeech({
        videoId,
        storagePath: job.storagePath,
        language: pieceLanguage,
        ...(job.nodeLabels ? { nodeLabels: job.nodeLabels } : {}),
        run,
        piece,
      });
    const [first, ...rest] = job.pieces;
    // `auto`: the first piece's engine detects the language, and the others are asked for it, so
    // every piece of a track is in one language.
    const heardFirst = await transcribe(first!, language);
    const trackLanguage = language === 'auto' ? heardFirst.language : language;
    const heardRest = await Promise.all(rest.map((piece) => transcribe(piece, trackLanguage)));
    const heard = [heardFirst, ...heardRest];
    const made = await joining.joinTranscript({
      videoId,
      language: trackLanguage,
      pieces: job.pieces.map((piece, i) => ({ piece, wordsKey: heard[i]!.wordsKey })),
    });
    const stored = await database.storeGeneratedCaptionTrack({
      videoId,
      language: trackLanguage,
      ...(label !== undefined ? { label } : {}),
      key: made.key,
      sizeBytes: made.sizeBytes,
    });
    if (!stored) return { status: 'skipped', reason: 'the video was deleted while its speech was transcribed' };
    log.info('generated captions ready', { videoId, language: trackLanguage, cues: made.cues, pieces: heard.length });
    await notifyCaptionReady(videoId);
    return { status: 'ready', language: trackLanguage, cues: made.cues, pieces: heard.length };
  } catch (error) {
    if (isCancellation(error)) throw error;
    const reason = describeFailure(error);
    log.warn('generated captions failed', { videoId, language, reason });
    return { status: 'failed', reason };
  }
}

/** `video.caption.ready` with the video's details, as the API sends it for an uploaded track. */
async function notifyCaptionReady(videoId: string): Promise<void> {
  try {
    const data = await database.videoDetails({ videoId });
    if (!data) return;
    const payload: VideoWebhookPayload = {
      event: 'video.caption.ready',
      videoId,
      status: 'ready',
      timestamp: new Date().toISOString(),
      data,
    };
    await startChild(deliverWebhooks, {
      workflowId: workflowIds.deliverWebhooks(videoId, uuid4()),
      args: [{ payload }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (error) {
    log.error('could not send video.caption.ready', { videoId, error: String(error) });
  }
}
