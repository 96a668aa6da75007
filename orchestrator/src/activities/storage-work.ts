// Activities on object storage: the master playlist, and removing a video's files. Each heartbeats
// while it works (a long video's outputs are thousands of objects to list and delete): a worker
// that dies midway is noticed at the heartbeat timeout.
import {
  hlsContentTypes,
  hlsInitName,
  objectKeys,
  plannedBootstrapSegments,
  plannedSegments,
  renderMediaPlaylist,
  type PlaylistSegment,
} from '@kino/proto/contract';
import { renderMasterPlaylist, type MasterAudio, type MasterVariant } from '../master-playlist.ts';
import {
  findLiveVideoByStoragePath,
  getVideo,
  hasLiveClips,
  listAudioTracks,
  listRenditions,
} from '@kino/database/repositories';
import type { ActivityDeps } from './index.ts';
import { whileHeartbeating } from './heartbeat.ts';
import { joinFirstSegments } from '../first-segment-join.ts';

type StorageDeps = Pick<ActivityDeps, 'db' | 'storage' | 'logger'>;

export function createStorageActivities(deps: StorageDeps) {
  return {
    ...createPlaylistActivities(deps),
    ...createRecordingInputActivities(deps),
    ...createRemovalActivities(deps),
  };
}

/** The playlists a workflow writes itself: the master, a chunked encode's, a just-in-time video's planned ones. */
function createPlaylistActivities({ storage }: StorageDeps) {
  return {
    /** `audio`: the alternate audio renditions of a source with several tracks (absent: none). */
    async writeMasterPlaylist({
      videoId,
      variants,
      audio = [],
    }: {
      videoId: string;
      variants: MasterVariant[];
      audio?: MasterAudio[];
    }): Promise<string> {
      const key = objectKeys.master(videoId);
      await whileHeartbeating(() => storage.put(key, renderMasterPlaylist(variants, audio), hlsContentTypes.playlist));
      return key;
    },

    /**
     * The rendition playlists of a chunked encode, from the chunks' segments in order (written
     * after every segment is in storage, as a node writes a whole encode's playlist last).
     */
    async writeRenditionPlaylists({
      videoId,
      renditions,
    }: {
      videoId: string;
      /**
       * `key` is absent in workflows started before codec renditions: an H.264 rung, named by its
       * short edge. `bootstrap`: the first segment's bootstrap segments, for its bootstrap playlist.
       */
      renditions: {
        key?: string;
        shortEdgePixels: number;
        segments: PlaylistSegment[];
        bootstrap?: PlaylistSegment[];
      }[];
    }): Promise<void> {
      await whileHeartbeating(async () => {
        for (const { key, shortEdgePixels, segments, bootstrap } of renditions) {
          const rendition = key ?? shortEdgePixels;
          // The bootstrap playlist first: a playlist in storage means what it lists is there.
          if (bootstrap)
            await storage.put(
              objectKeys.bootstrapPlaylist(videoId, rendition),
              renderMediaPlaylist(segments, bootstrap),
              hlsContentTypes.playlist,
            );
          await storage.put(
            objectKeys.renditionPlaylist(videoId, rendition),
            renderMediaPlaylist(segments),
            hlsContentTypes.playlist,
          );
        }
      });
    },

    /**
     * A rendition's first segment joined from its bootstrap segments (first-segment-join.ts), unless
     * the second run's chunk job joined it already.
     */
    async joinBootstrapSegments({ videoId, renditions }: { videoId: string; renditions: string[] }): Promise<void> {
      await whileHeartbeating(() => joinFirstSegments(storage, videoId, renditions));
    },

    /**
     * A just-in-time video's rendition playlists before their segments exist (plannedSegments: the
     * keyframe grid's cuts, from the probe); the playlists of the encoded segments replace them
     * once the ladder is complete. Answers each rendition's number of segments.
     */
    async writePlannedPlaylists({
      videoId,
      durationSeconds,
      videoSeconds,
      renditions,
      bootstrap = false,
    }: {
      videoId: string;
      durationSeconds: number;
      videoSeconds: number;
      renditions: { key: string; frameRate: number; segmentSeconds: number }[];
      /** The first segment is made as bootstrap segments: each rendition's bootstrap playlist too. */
      bootstrap?: boolean;
    }): Promise<{ segmentCounts: number[] }> {
      const segmentCounts: number[] = [];
      await whileHeartbeating(async () => {
        for (const { key, frameRate, segmentSeconds } of renditions) {
          const segments = plannedSegments({ durationSeconds, videoSeconds, frameRate, segmentSeconds });
          if (bootstrap)
            await storage.put(
              objectKeys.bootstrapPlaylist(videoId, key),
              renderMediaPlaylist(segments, plannedBootstrapSegments(segments[0]!, frameRate)),
              hlsContentTypes.playlist,
            );
          await storage.put(
            objectKeys.renditionPlaylist(videoId, key),
            renderMediaPlaylist(segments),
            hlsContentTypes.playlist,
          );
          segmentCounts.push(segments.length);
        }
      });
      return { segmentCounts };
    },
  };
}

/** Removing what a failed run, a finished chunked encode or a deletion leaves. */
function createRemovalActivities({ db, storage, logger }: StorageDeps) {
  async function removeOutputs(videoId: string): Promise<number> {
    const removed = await storage.deletePrefix(objectKeys.videoPrefix(videoId));
    logger.info({ videoId, removed }, 'video outputs removed');
    return removed;
  }

  /**
   * The uploaded files of a deleted video's added audio tracks (their renditions are under its
   * prefix), unless a live video was made from one of them. A replaced or removed track's file went
   * when it was replaced or removed (api/src/routes/audio-tracks.ts).
   */
  async function removeAddedTrackFiles(videoId: string): Promise<number> {
    let removed = 0;
    for (const track of await listAudioTracks(db, videoId)) {
      if ((await findLiveVideoByStoragePath(db, track.storage_path)) || !(await storage.head(track.storage_path)))
        continue;
      await storage.delete(track.storage_path);
      removed += 1;
    }
    return removed;
  }

  return {
    /** Everything under `videos/{id}/`: what a failed or cancelled run leaves behind. */
    async removeVideoOutputs({ videoId }: { videoId: string }): Promise<{ removed: number }> {
      return { removed: await whileHeartbeating(() => removeOutputs(videoId)) };
    },

    /**
     * What a failed chunked run leaves, but its finished chunks: playlists, thumbnails and the
     * like go, so nothing plays; segments and the chunk records (under work/) stay for a retry with
     * the same parameters. Deleting the video removes them with the rest.
     */
    async removeVideoOutputsButChunks({ videoId }: { videoId: string }): Promise<{ removed: number }> {
      const keys = await whileHeartbeating(async () => {
        const outputs = (await storage.list(objectKeys.videoPrefix(videoId))).filter(
          (key) =>
            !key.startsWith(objectKeys.workPrefix(videoId)) &&
            !key.endsWith('.m4s') &&
            !key.endsWith(`/${hlsInitName}`),
        );
        await storage.deleteMany(outputs);
        return outputs;
      });
      logger.info({ videoId, removed: keys.length }, 'video outputs removed, finished chunks kept');
      return { removed: keys.length };
    },

    /** The intermediate files of a chunked encode, once the video is ready. */
    async removeWorkFiles({ videoId }: { videoId: string }): Promise<{ removed: number }> {
      return { removed: await whileHeartbeating(() => storage.deletePrefix(objectKeys.workPrefix(videoId))) };
    },

    /**
     * A deleted video's files: its outputs, and its original upload unless a live video was made
     * from the same upload since. Outputs whose segments a live clip plays stay (docs/decisions/delivery.md#clips);
     * they go with the last such clip: a clip's own removal removes its media video's outputs too
     * when that video is deleted and no other live clip needs them.
     */
    async removeVideoContent({ videoId }: { videoId: string }): Promise<{ removed: number }> {
      return whileHeartbeating(async () => {
        const video = await getVideo(db, videoId);
        let removed = 0;
        if (await hasLiveClips(db, videoId))
          logger.info({ videoId }, 'video outputs kept: a live clip plays its segments');
        else removed += await removeOutputs(videoId);
        if (
          video &&
          !(await findLiveVideoByStoragePath(db, video.storage_path)) &&
          (await storage.head(video.storage_path))
        ) {
          await storage.delete(video.storage_path);
          removed += 1;
          logger.info({ videoId, key: video.storage_path }, 'original upload removed');
        }
        removed += await removeAddedTrackFiles(videoId);
        const mediaVideoId = video?.clip_media_video_id;
        if (mediaVideoId) {
          const media = await getVideo(db, mediaVideoId);
          if (media?.deleted_at && !(await hasLiveClips(db, mediaVideoId))) {
            removed += await removeOutputs(mediaVideoId);
            logger.info(
              { videoId, mediaVideoId },
              "the last clip of a deleted video is gone: that video's outputs removed",
            );
          }
        }
        return { removed };
      });
    },
  };
}

/** Inputs read from a broadcast's recording, which has no source upload (docs/decisions/live.md). */
function createRecordingInputActivities({ db, storage }: StorageDeps) {
  return {
    /**
     * The inputs of a frame-accurate clip's windows when its source is a broadcast's recording, which
     * has no source file (docs/decisions/live.md): for each window's start, the segment holding it in
     * the recording's top rendition, its init and its bytes as one fMP4 file (fragments concatenate;
     * Debian's ffmpeg 5.1 cannot seek into an fMP4 HLS input), stored under the clip's work/. Answers
     * each one's key and where its segment starts in the recording (ChunkPlan.inputOffsetSeconds).
     */
    async writeRecordingWindowInputs({
      videoId,
      sourceVideoId,
      startsSeconds,
    }: {
      videoId: string;
      sourceVideoId: string;
      startsSeconds: number[];
    }): Promise<{ key: string; offsetSeconds: number }[]> {
      return whileHeartbeating(async () => {
        const top = (await listRenditions(db, sourceVideoId)).filter((r) => r.width > 0).at(-1);
        if (!top) throw new Error(`the recording ${sourceVideoId} has no picture rendition`);
        const playlist = await storage.get(objectKeys.renditionPlaylist(sourceVideoId, top.key));
        if (!playlist) throw new Error(`rendition ${top.key} of the recording ${sourceVideoId} has no playlist`);
        const segments = mediaSegmentsOf(playlist.toString('utf8'));
        const init = await storage.get(objectKeys.renditionInit(sourceVideoId, top.key));
        if (!init) throw new Error(`rendition ${top.key} of the recording ${sourceVideoId} has no init segment`);
        const inputs = [];
        for (const start of startsSeconds) {
          // The last segment starting at or before the window (its start lies on a segment's boundary or inside one).
          const index = segments.findLastIndex((s) => s.startSeconds <= start + 0.001);
          const segment = segments[index];
          if (!segment) throw new Error(`the recording ${sourceVideoId} has no segment at ${start} s`);
          const bytes = await storage.get(`${objectKeys.renditionDir(sourceVideoId, top.key)}/${segment.uri}`);
          if (!bytes) throw new Error(`segment ${segment.uri} of the recording ${sourceVideoId} is not in storage`);
          const key = objectKeys.clipWindowInput(videoId, index);
          await storage.put(key, Buffer.concat([init, bytes]), 'video/mp4');
          inputs.push({ key, offsetSeconds: segment.startSeconds });
        }
        return inputs;
      });
    },
  };
}

/** A media playlist's segments: each URI and where it starts (the EXTINFs before it). */
function mediaSegmentsOf(playlist: string): { uri: string; startSeconds: number }[] {
  const segments = [];
  let startSeconds = 0;
  let duration = 0;
  for (const line of playlist.split('\n')) {
    if (line.startsWith('#EXTINF:')) duration = Number.parseFloat(line.slice(8));
    else if (line && !line.startsWith('#')) {
      segments.push({ uri: line, startSeconds });
      startSeconds += duration;
    }
  }
  return segments;
}
