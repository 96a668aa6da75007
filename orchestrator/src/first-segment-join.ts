// A just-in-time video's first segment joined from its bootstrap segments (issue 55;
// docs/decisions/just-in-time.md#bootstrap-segments): fMP4 fragments concatenate, so the 6 s segment
// players without `bootstrap` get is their bytes in order. The first run makes boot-0, the second
// boot-1 and boot-2 and then runs on through the next run's segments: the join waits for the three
// parts, not for the second run's end, so a player without `bootstrap` waits no longer than for a
// second run of 4 s (the chunk job, joinFirstSegmentOnceStored); the workflow joins again after both
// runs, which finds it done (or does it, if the chunk job's wait ended first).
import type { Storage } from '@kino/infra';
import { hlsBootstrapCount, hlsContentTypes, objectKeys } from '@kino/proto/contract';

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
