// Activities on the `audio_tracks` rows of tracks added to a ready video (workflows/add-audio-track.ts),
// each through the repository that is the one writer of its table.
import {
  getVideo,
  hasSoundInPictures,
  listAudioTracks,
  listRenditions,
  markAudioTrackFailed,
  markAudioTrackReady,
} from '@kino/database/repositories';
import type { EncodingParameters } from '@kino/proto/contract';
import type { RenditionResult } from '../activity-types.ts';
import type { ActivityDeps } from './index.ts';
import { renditionRowOf } from './video-records.ts';

/** What adding a track needs: its file and what the master says of it, the video's duration and settings. */
export interface AudioTrackJob {
  storagePath: string;
  name: string;
  isDefault: boolean;
  /** The video's (its longest stream's): the track is padded or cut to it. */
  durationSeconds: number;
  parameters: EncodingParameters;
  /**
   * The video's sound is muxed in its pictures (hasSoundInPictures): it must be separated first
   * (workflows/separate-sound.ts). Absent in jobs recorded before separation existed, whose videos
   * all had alternate audio (the API refused the others).
   */
  soundInPictures?: boolean;
}

export function createAudioTrackRecordActivities({ db, logger }: Pick<ActivityDeps, 'db' | 'logger'>) {
  return {
    /**
     * The track as adding it needs, or null when there is nothing to do: the track was replaced
     * (another rendition key) or removed, or the video is gone or no longer ready.
     */
    async loadAudioTrackJob({
      videoId,
      language,
      renditionKey,
    }: {
      videoId: string;
      language: string;
      renditionKey: string;
    }): Promise<AudioTrackJob | null> {
      const [video, tracks, renditions] = await Promise.all([
        getVideo(db, videoId),
        listAudioTracks(db, videoId),
        listRenditions(db, videoId),
      ]);
      const track = tracks.find((t) => t.language === language && t.rendition_key === renditionKey);
      if (!video || video.deleted_at !== null || video.status !== 'ready' || video.duration_seconds === null)
        return null;
      if (!track || track.status !== 'processing') return null;
      return {
        storagePath: track.storage_path,
        name: track.name,
        isDefault: track.is_default,
        durationSeconds: video.duration_seconds,
        parameters: video.parameters,
        soundInPictures: hasSoundInPictures(renditions),
      };
    },

    /** Records the rendition and makes the track `ready` (the master names it from then); false when replaced meanwhile. */
    async markAudioTrackReady({
      videoId,
      language,
      result,
    }: {
      videoId: string;
      language: string;
      result: RenditionResult;
    }): Promise<boolean> {
      const marked = await markAudioTrackReady(db, {
        videoId,
        language,
        renditionKey: result.plan.key,
        channels: result.plan.audioTrack?.channels ?? 0,
        rendition: renditionRowOf(videoId, result),
      });
      logger.info(
        { videoId, language, key: result.plan.key, marked },
        marked ? 'audio track ready' : 'audio track replaced before ready',
      );
      return marked;
    },

    async markAudioTrackFailed(input: {
      videoId: string;
      language: string;
      renditionKey: string;
      reason: string;
    }): Promise<void> {
      const marked = await markAudioTrackFailed(db, input);
      logger.warn({ ...input, marked }, 'audio track failed');
    },
  };
}
