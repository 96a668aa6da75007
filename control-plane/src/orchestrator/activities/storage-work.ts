// Activities on object storage: the master playlist, and removing a video's files.
import { hlsContentTypes, objectKeys } from '@kino/proto/contract';
import { renderMasterPlaylist, type MasterVariant } from '../master-playlist.ts';
import { findLiveVideoByStoragePath, getVideo } from '../../repositories/videos.ts';
import type { ActivityDeps } from './index.ts';

export function createStorageActivities({ db, storage, logger }: Pick<ActivityDeps, 'db' | 'storage' | 'logger'>) {
  async function removeVideoOutputs({ videoId }: { videoId: string }): Promise<{ removed: number }> {
    const removed = await storage.deletePrefix(objectKeys.videoPrefix(videoId));
    logger.info({ videoId, removed }, 'video outputs removed');
    return { removed };
  }

  return {
    async writeMasterPlaylist({ videoId, variants }: { videoId: string; variants: MasterVariant[] }): Promise<string> {
      const key = objectKeys.master(videoId);
      await storage.put(key, renderMasterPlaylist(variants), hlsContentTypes.playlist);
      return key;
    },

    /** Everything under `videos/{id}/`: what a failed or cancelled run leaves behind. */
    removeVideoOutputs,

    /**
     * A deleted video's files: its outputs, and its original upload unless a live video was made
     * from the same upload since.
     */
    async removeVideoContent({ videoId }: { videoId: string }): Promise<{ removed: number }> {
      let { removed } = await removeVideoOutputs({ videoId });
      const video = await getVideo(db, videoId);
      if (video && !(await findLiveVideoByStoragePath(db, video.storage_path)) && (await storage.head(video.storage_path))) {
        await storage.delete(video.storage_path);
        removed += 1;
        logger.info({ videoId, key: video.storage_path }, 'original upload removed');
      }
      return { removed };
    },
  };
}
