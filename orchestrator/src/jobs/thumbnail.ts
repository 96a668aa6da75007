// The thumbnail job: one JPEG at a timestamp of the source, source-sized, under thumbs/: the default
// thumbnail, or a custom one (from POST .../thumbnails). Takes no encode slot.
import { hlsContentTypes, objectKeys } from '@kino/proto/contract';
import { urlLifetimeSeconds } from './presign.ts';
import { quickCallTimeoutMs, runJobOnNode, type NodeJobDeps } from './run-on-node.ts';

const defaultThumbnailName = 'default.jpg';

export interface ThumbnailInput {
  videoId: string;
  storagePath: string;
  timestampSeconds: number;
  /** The thumbnail's file name; defaultThumbnailName when unset. */
  name?: string;
  /** The source's (its probe's): an HDR source's frame is tone-mapped. Absent (workflows of before): SDR. */
  dynamicRange?: string;
}

/** Makes the thumbnail; answers its key. */
export async function makeThumbnail(
  { storage, farm, logger }: NodeJobDeps,
  { videoId, storagePath, timestampSeconds, name = defaultThumbnailName, dynamicRange = '' }: ThumbnailInput,
): Promise<string> {
  const key = objectKeys.thumbnail(videoId, name);
  const lifetime = urlLifetimeSeconds();
  const [inputUrl, outputUrl] = await Promise.all([
    storage.presignGet(storagePath, lifetime),
    storage.presignPut(key, lifetime, hlsContentTypes.thumbnail),
  ]);
  await runJobOnNode({ farm, logger }, videoId, 'thumbnail', { slot: false }, ({ node, jobId, signal }) =>
    farm
      .client(node)
      .thumbnail(
        { jobId, inputUrl, outputUrl, timestampSeconds, width: 0, height: 0, dynamicRange },
        { signal, timeoutMs: quickCallTimeoutMs },
      ),
  );
  return key;
}
