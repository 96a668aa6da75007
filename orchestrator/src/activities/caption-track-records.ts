// Activities on the `caption_tracks` rows of tracks made from speech (workflows/generate-captions.ts),
// through the repository that is the one writer of its table.
import { getVideo, putCaptionTrack } from '@kino/database/repositories';
import {
  defaultCaptionLabel,
  defaultTranscriptPieceSeconds,
  planTranscriptPieces,
  type TranscriptPiece,
} from '@kino/proto/contract';
import type { ActivityDeps } from './index.ts';

/** What making captions from a video's speech needs of it. */
export interface CaptionJob {
  storagePath: string;
  nodeLabels?: string[];
  /** The pieces its sound is transcribed in (one for a video up to CAPTIONS_PIECE_SECONDS and a half). */
  pieces: TranscriptPiece[];
}

export function createCaptionTrackRecordActivities({
  db,
  storage,
  logger,
  transcriptPieceSeconds = defaultTranscriptPieceSeconds,
}: Pick<ActivityDeps, 'db' | 'storage' | 'logger' | 'transcriptPieceSeconds'>) {
  return {
    /** The video as transcribing needs it, or null when it is gone or not ready. */
    async loadCaptionJob({ videoId }: { videoId: string }): Promise<CaptionJob | null> {
      const video = await getVideo(db, videoId);
      if (!video || video.deleted_at !== null || video.status !== 'ready') return null;
      const nodeLabels = video.parameters.nodeLabels ?? [];
      // A video whose length is not known (none is, once ready; kept for safety) is read whole.
      const pieces =
        video.duration_seconds !== null
          ? planTranscriptPieces(video.duration_seconds, transcriptPieceSeconds)
          : [{ index: 0, startSeconds: 0, endSeconds: 0 }];
      return { storagePath: video.storage_path, ...(nodeLabels.length > 0 ? { nodeLabels } : {}), pieces };
    },

    /**
     * Puts the generated track in place of the language's track (a file upload later replaces it
     * the same way), and removes the file it replaced. False when the video went meanwhile.
     */
    async storeGeneratedCaptionTrack(input: {
      videoId: string;
      language: string;
      label?: string;
      key: string;
      sizeBytes: number;
    }): Promise<boolean> {
      const video = await getVideo(db, input.videoId);
      if (!video || video.deleted_at !== null) {
        await storage.delete(input.key);
        return false;
      }
      const { replacedKey } = await putCaptionTrack(db, {
        videoId: input.videoId,
        language: input.language,
        label: input.label ?? defaultCaptionLabel(input.language),
        isDefault: false,
        source: 'generated',
        storageKey: input.key,
        sizeBytes: input.sizeBytes,
      });
      if (replacedKey)
        await storage
          .delete(replacedKey)
          .catch((error: unknown) =>
            logger.warn({ err: error, key: replacedKey }, 'a caption file no track uses stays in storage'),
          );
      return true;
    },
  };
}
