// A just-in-time video's first segment joined from its bootstrap segments (issue 55;
// docs/decisions/just-in-time.md#bootstrap-segments): fMP4 fragments concatenate, so the 6 s segment
// players without `bootstrap` get is their bytes in order. The first run makes boot-0, the second
// boot-1 and boot-2 and then runs on through the next run's segments: the join waits for the three
// parts, not for the second run's end, so a player without `bootstrap` waits no longer than for a
// second run of 4 s (the chunk job, joinFirstSegmentOnceStored); the workflow joins again after both
// runs, which finds it done (or does it, if the chunk job's wait ended first).
//
// Since patch `bootstrap-one-run` the first run makes all three parts and runs on; the video turns
// `ready` once its first part and init segment are stored in every H.264 rendition
// (firstBootstrapSegmentsStored), while the run goes on.
import type { Storage } from '@kino/infra';
import { parseInitSegment } from '@kino/ffmpeg';
import { hlsBootstrapCount, hlsContentTypes, objectKeys } from '@kino/proto/contract';
import type { FirstSegmentsMade } from './activity-types.ts';

/** How often the wait for the bootstrap segments looks at storage (a HEAD per part still missing), as delivery's waits do. */
const storedPollMs = 200;

/**
 * Joins each of `renditions`' first segment from its bootstrap segments, unless it is stored
 * already (an earlier join: the same bytes). Throws when a part is missing.
 */
export async function joinFirstSegments(
  storage: Pick<Storage, 'get' | 'head' | 'put'>,
  videoId: string,
  renditions: readonly string[],
): Promise<void> {
  for (const key of renditions) {
    if (await storage.head(objectKeys.segment(videoId, key, 0))) continue;
    const parts: Buffer[] = [];
    for (let k = 0; k < hlsBootstrapCount; k += 1) {
      const part = await storage.get(objectKeys.bootstrapSegment(videoId, key, k));
      if (!part) throw new Error(`bootstrap segment ${k} of ${key} is not in storage`);
      parts.push(part);
    }
    await storage.put(objectKeys.segment(videoId, key, 0), Buffer.concat(parts), hlsContentTypes.segment);
  }
}

/**
 * Waits until every bootstrap segment of `renditions` is stored, then joins their first segments;
 * gives up (false) once `stopped` is aborted first (the run ended: the workflow joins them).
 */
export async function joinFirstSegmentsOnceStored(
  storage: Pick<Storage, 'get' | 'head' | 'put'>,
  videoId: string,
  renditions: readonly string[],
  stopped: AbortSignal,
): Promise<boolean> {
  const missing = renditions.flatMap((key) =>
    Array.from({ length: hlsBootstrapCount }, (_, k) => objectKeys.bootstrapSegment(videoId, key, k)),
  );
  while (missing.length > 0) {
    if (stopped.aborted) return false;
    // The last part of the last rendition is the last to come: checked first, the rest only once it is there.
    if (await storage.head(missing.at(-1)!)) missing.pop();
    else await new Promise((resolve) => setTimeout(resolve, storedPollMs));
  }
  await joinFirstSegments(storage, videoId, renditions);
  return true;
}

/**
 * Waits until the first bootstrap segment and the init segment of every one of `renditions` are
 * stored (the first run goes on meanwhile), then reads from each init segment what publishing needs
 * of the run's outcome (CODECS and the picture's size, as the node reads them from the same bytes).
 * Throws the signal's reason once `stopped` is aborted first.
 */
export async function firstBootstrapSegmentsStored(
  storage: Pick<Storage, 'get' | 'head'>,
  videoId: string,
  renditions: readonly string[],
  stopped: AbortSignal,
): Promise<FirstSegmentsMade[]> {
  const missing = renditions.flatMap((key) => [
    objectKeys.renditionInit(videoId, key),
    objectKeys.bootstrapSegment(videoId, key, 0),
  ]);
  while (missing.length > 0) {
    stopped.throwIfAborted();
    // The top rendition's first part is the last to come (one decode makes them all, the largest last).
    if (await storage.head(missing.at(-1)!)) missing.pop();
    else await new Promise((resolve) => setTimeout(resolve, storedPollMs));
  }
  const made: FirstSegmentsMade[] = [];
  for (const key of renditions) {
    const init = await storage.get(objectKeys.renditionInit(videoId, key));
    if (!init) throw new Error(`the init segment of ${key} is not in storage`);
    const { codecs, width, height } = parseInitSegment(init);
    made.push({ key, codecs, width, height });
  }
  return made;
}
