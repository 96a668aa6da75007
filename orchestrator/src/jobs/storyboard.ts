// The storyboard job (contract storyboard.ts): its sheets and WebVTT under storyboard/, made by a
// node from the source. Takes no encode slot.
import {
  objectKeys,
  planStoryboard,
  storyboardContentTypes,
  storyboardSheetName,
  storyboardVttName,
} from '@kino/proto/contract';
import { urlLifetimeSeconds } from './presign.ts';
import { runJobOnNode, type NodeJobDeps } from './run-on-node.ts';

/** A storyboard decodes the whole source (no encode): minutes for a long one. */
const storyboardCallTimeoutMs = 14 * 60_000;

export interface StoryboardInput {
  videoId: string;
  storagePath: string;
  durationSeconds: number;
  /** The source's (its probe's): an HDR source's tiles are tone-mapped. Absent (workflows of before): SDR. */
  dynamicRange?: string;
}

/** Makes the storyboard; answers the VTT's key. */
export async function makeStoryboard(
  { storage, farm, logger }: NodeJobDeps,
  { videoId, storagePath, durationSeconds, dynamicRange = '' }: StoryboardInput,
): Promise<string> {
  const { sheets } = planStoryboard(durationSeconds);
  const vttKey = objectKeys.storyboard(videoId, storyboardVttName);
  const lifetime = urlLifetimeSeconds();
  const [inputUrl, vttUrl, ...sheetUrls] = await Promise.all([
    storage.presignGet(storagePath, lifetime),
    storage.presignPut(vttKey, lifetime, storyboardContentTypes.vtt),
    ...Array.from({ length: sheets }, (_, i) =>
      storage.presignPut(
        objectKeys.storyboard(videoId, storyboardSheetName(i)),
        lifetime,
        storyboardContentTypes.sheet,
      ),
    ),
  ]);
  await runJobOnNode({ farm, logger }, videoId, 'storyboard', { slot: false }, ({ node, jobId, signal }) =>
    farm
      .client(node)
      .storyboard(
        { jobId, inputUrl: inputUrl!, durationSeconds, sheetUrls, vttUrl: vttUrl!, dynamicRange },
        { signal, timeoutMs: storyboardCallTimeoutMs },
      ),
  );
  return vttKey;
}
