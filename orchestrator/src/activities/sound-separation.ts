// Activities of separating a video's sound from its pictures (workflows/separate-sound.ts), done
// once per video when a track is added to one whose sound is muxed in its pictures
// (docs/decisions/encoding.md#audio): what to make, each copy's input playlist, and the finish:
// the copies checked against their originals, the second master written, and the records and the
// video's master switched in one transaction.
import { ApplicationFailure } from '@temporalio/activity';
import type { Rendition } from '@kino/database';
import { getVideo, hasSoundInPictures, listRenditions, recordSeparatedSound } from '@kino/database/repositories';
import {
  hlsContentTypes,
  hlsPlaylistName,
  mediaPlaylistDurations,
  objectKeys,
  withAbsoluteUris,
  type EncodingParameters,
} from '@kino/proto/contract';
import { failureTypes, type RenditionResult } from '../activity-types.ts';
import { planPictureCopy, type RenditionPlan } from '../ladder.ts';
import { masterAudioOf, masterVariantOf, renderMasterPlaylist, type VideoRange } from '../master-playlist.ts';
import { urlLifetimeSeconds } from '../jobs/presign.ts';
import { whileHeartbeating } from './heartbeat.ts';
import type { ActivityDeps } from './index.ts';
import { renditionRowOf } from './video-records.ts';

/** What separating a video's sound makes: its sound from the source, and a copy of each picture rendition. */
export interface SoundSeparationJob {
  /** The source: its sound becomes `0p-a1`. */
  storagePath: string;
  durationSeconds: number;
  parameters: EncodingParameters;
  /** One per picture rendition, in ladder order (planPictureCopy). */
  copies: RenditionPlan[];
  /** The VIDEO-RANGE the first master gives each copy's original, by the copy's key (absent: SDR). */
  videoRanges: Record<string, VideoRange>;
}

type Deps = Pick<ActivityDeps, 'db' | 'storage' | 'logger'>;

export function createSoundSeparationActivities({ db, storage, logger }: Deps) {
  return {
    /**
     * The separation to make, or null when there is none: it was made before (the video's row names
     * its second master), or the video is gone. Refused (non-retryable) for a video whose ladder is
     * not complete or whose sound is not in its pictures: the API admits neither.
     */
    async loadSoundSeparationJob({ videoId }: { videoId: string }): Promise<SoundSeparationJob | null> {
      const video = await getVideo(db, videoId);
      if (!video || video.deleted_at !== null || video.master_key !== null) return null;
      if (video.status !== 'ready' || video.segments_pending || video.duration_seconds === null)
        throw ApplicationFailure.nonRetryable(
          `video ${videoId} is not ready with a complete ladder`,
          failureTypes.invalidRequest,
        );
      const renditions = await listRenditions(db, videoId);
      if (!hasSoundInPictures(renditions))
        throw ApplicationFailure.nonRetryable(
          `video ${videoId} has no sound in its pictures`,
          failureTypes.invalidRequest,
        );
      const master = (await whileHeartbeating(() => storage.get(objectKeys.master(videoId))))?.toString('utf8') ?? '';
      const copies = renditions.filter((r) => r.width > 0).map((r) => copyOf(video.parameters, r));
      const videoRanges = Object.fromEntries(
        copies.flatMap((copy) => {
          const range = videoRangeIn(master, originalOf(copy.key));
          return range ? [[copy.key, range]] : [];
        }),
      );
      return {
        storagePath: video.storage_path,
        durationSeconds: video.duration_seconds,
        parameters: video.parameters,
        copies,
        videoRanges,
      };
    },

    /**
     * The input of a picture copy: the original rendition's playlist with its init and segments
     * named by presigned GETs (a node reads it from one URL), stored under work/. Answers its key.
     */
    async writePictureCopyInput({ videoId, original }: { videoId: string; original: string }): Promise<string> {
      const key = objectKeys.pictureCopyInput(videoId, original);
      await whileHeartbeating(async () => {
        const playlist = await storage.get(objectKeys.renditionPlaylist(videoId, original));
        if (!playlist) throw new Error(`rendition ${original} of video ${videoId} has no playlist in storage`);
        const lifetime = urlLifetimeSeconds();
        const urls = new Map<string, string>();
        const text = playlist.toString('utf8');
        for (const uri of uriLines(text))
          urls.set(uri, await storage.presignGet(`${objectKeys.renditionDir(videoId, original)}/${uri}`, lifetime));
        await storage.put(
          key,
          withAbsoluteUris(text, (uri) => urls.get(uri)!),
          hlsContentTypes.playlist,
        );
      });
      return key;
    },

    /**
     * The separation made: each copy's segments checked to last what its original's do (else the
     * track fails, non-retryable: the copy would not switch seamlessly with the first master's
     * renditions), the second master written, then the renditions recorded and the video pointed at
     * it in one transaction. The copies' inputs go. False when another run recorded it first.
     */
    async finishSoundSeparation({
      videoId,
      sound,
      copies,
      videoRanges,
    }: {
      videoId: string;
      sound: RenditionResult;
      copies: RenditionResult[];
      videoRanges: Record<string, VideoRange>;
    }): Promise<boolean> {
      const masterKey = objectKeys.separatedSoundMaster(videoId);
      await whileHeartbeating(async () => {
        for (const { plan } of copies) await checkSameCuts(storage, videoId, plan.key);
        const variants = copies.map(({ plan, outcome }) => {
          const range = videoRanges[plan.key];
          return masterVariantOf(plan, outcome, range ? { videoRange: range } : {});
        });
        const audio = [masterAudioOf(sound.plan, sound.outcome)];
        await storage.put(masterKey, renderMasterPlaylist(variants, audio), hlsContentTypes.playlist);
      });
      const recorded = await recordSeparatedSound(db, {
        videoId,
        masterKey,
        renditions: [sound, ...copies].map((result) => renditionRowOf(videoId, result)),
      });
      for (const { plan } of copies) await storage.delete(objectKeys.pictureCopyInput(videoId, originalOf(plan.key)));
      logger.info({ videoId, masterKey, recorded }, recorded ? 'sound separated' : 'sound separated before');
      return recorded;
    },
  };
}

/** The copy without sound of a picture rendition as its row records it. */
function copyOf(parameters: EncodingParameters, r: Rendition): RenditionPlan {
  return planPictureCopy(parameters, {
    key: r.key,
    width: r.width,
    height: r.height,
    shortEdgePixels: r.short_edge_pixels,
    shortEdgeIsWidth: r.short_edge_is_width,
    videoBitrateKbps: r.video_bitrate_kbps,
    frameRate: r.frame_rate,
    pixelFormat: r.pixel_format as RenditionPlan['pixelFormat'],
    rateControlMode: r.rate_control_mode as RenditionPlan['rateControlMode'],
    compressionRatio: r.compression_ratio as RenditionPlan['compressionRatio'],
    videoCodec: r.video_codec,
  });
}

/** The original's key of a picture copy (`720p-v` → `720p`). */
function originalOf(copyKey: string): string {
  return copyKey.slice(0, -'-v'.length);
}

/** The URI lines of a media playlist: its init (EXT-X-MAP) and its segments. */
function uriLines(playlist: string): string[] {
  return playlist.split('\n').flatMap((line) => {
    if (line.startsWith('#EXT-X-MAP:')) return [/URI="([^"]+)"/.exec(line)?.[1] ?? []].flat();
    return line === '' || line.startsWith('#') ? [] : [line.trim()];
  });
}

/** The VIDEO-RANGE of the variant `key` in a master, if it says one. */
function videoRangeIn(master: string, key: string): VideoRange | undefined {
  const lines = master.split('\n');
  const index = lines.findIndex((line) => line === `${key}/${hlsPlaylistName}`);
  const range = index > 0 ? /VIDEO-RANGE=(SDR|PQ|HLG)/.exec(lines[index - 1]!)?.[1] : undefined;
  return range as VideoRange | undefined;
}

/** Throws (non-retryable) unless the copy `copyKey`'s segments last exactly what its original's do. */
async function checkSameCuts(storage: Deps['storage'], videoId: string, copyKey: string): Promise<void> {
  const [original, copy] = await Promise.all(
    [originalOf(copyKey), copyKey].map(async (key) => {
      const playlist = await storage.get(objectKeys.renditionPlaylist(videoId, key));
      if (!playlist) throw new Error(`rendition ${key} of video ${videoId} has no playlist in storage`);
      return mediaPlaylistDurations(playlist.toString('utf8'));
    }),
  );
  const same = original!.length === copy!.length && original!.every((seconds, i) => seconds === copy![i]);
  if (!same)
    throw ApplicationFailure.nonRetryable(
      `the copy of ${originalOf(copyKey)} without sound is cut apart from it (segments of ${copy!.join(', ')} s, not ${original!.join(', ')} s)`,
      failureTypes.invalidRequest,
    );
}
