// The presigned URLs a job carries: a node gets URLs for exactly the objects of its job, never the
// bucket's credentials. Each PUT is bound to its object's Content-Type (the node uploads with it):
// storage refuses anything else, so objects always carry the type delivery serves them with.
import { Context } from '@temporalio/activity';
import type { Storage } from '@kino/infra';
import {
  hlsBootstrapCount,
  hlsBootstrapName,
  hlsBootstrapSeconds,
  hlsContentTypes,
  hlsInitName,
  hlsPlaylistName,
  hlsSegmentName,
  objectKeys,
} from '@kino/proto/contract';
import type { ChunkPlan } from '../chunks.ts';
import type { RenditionPlan } from '../ladder.ts';

/** Presigned URLs live at least this long (seconds), longer when the attempt may run longer. */
const minimumUrlLifetimeSeconds = 2 * 60 * 60;
const maximumUrlLifetimeSeconds = 7 * 24 * 60 * 60; // SigV4's limit
/** Segment URLs beyond ceil(duration / segment length), for a container duration that undersells. */
const extraSegmentUrls = 2;

/**
 * How long a job's URLs live: the attempt's start-to-close timeout (the current activity's) and ten
 * minutes, within SigV4's bounds.
 */
export function urlLifetimeSeconds(attemptTimeoutMs: number = Context.current().info.startToCloseTimeoutMs): number {
  const attemptSeconds = Math.ceil(attemptTimeoutMs / 1000) + 600;
  return Math.min(maximumUrlLifetimeSeconds, Math.max(minimumUrlLifetimeSeconds, attemptSeconds));
}

/** A chunk's part of the video, for its outputs: its segments, and whether it is the video's last chunk. */
interface ChunkWindow {
  chunk: Pick<ChunkPlan, 'index' | 'firstSegment' | 'segmentCount' | 'bootstrap' | 'startSeconds' | 'durationSeconds'>;
  last: boolean;
}

/**
 * Presigned PUTs for the outputs of `renditions` (`<key>/<file>`): a whole encode's playlist, init
 * segment and segments (no `window`), or a chunk's segments (its init segment too for the first
 * chunk; a few spare segment URLs only for the last, as the next chunk owns the names after a
 * chunk's).
 */
export async function presignHlsOutputs(
  storage: Pick<Storage, 'presignPut'>,
  videoId: string,
  renditions: readonly Pick<RenditionPlan, 'key' | 'segmentSeconds'>[],
  durationSeconds: number,
  window: ChunkWindow | undefined,
  lifetime: number,
): Promise<Record<string, string>> {
  const outputUrls: Record<string, string> = {};
  for (const rendition of renditions) {
    const prefix = `${rendition.key}/`;
    const first = window ? window.chunk.firstSegment : 0;
    const count = window
      ? window.chunk.segmentCount + (window.last ? extraSegmentUrls : 0)
      : Math.ceil(durationSeconds / rendition.segmentSeconds) + extraSegmentUrls;
    if (!window) {
      outputUrls[prefix + hlsPlaylistName] = await storage.presignPut(
        objectKeys.renditionPlaylist(videoId, rendition.key),
        lifetime,
        hlsContentTypes.playlist,
      );
    }
    if (!window || window.chunk.index === 0) {
      outputUrls[prefix + hlsInitName] = await storage.presignPut(
        objectKeys.renditionInit(videoId, rendition.key),
        lifetime,
        hlsContentTypes.init,
      );
    }
    if (window?.chunk.bootstrap) {
      // A window starting in the first segment: its bootstrap segments in it, not a 6 s one (made
      // of the first run's too); past it (a window of the rest of segment 0 and the next run), the
      // 6 s segments the node joins from its later 2 s pieces.
      const { startSeconds, durationSeconds: seconds } = window.chunk;
      const firstPart = Math.round(startSeconds / hlsBootstrapSeconds);
      const endPart = Math.min(hlsBootstrapCount, Math.round((startSeconds + seconds) / hlsBootstrapSeconds));
      for (let k = firstPart; k < endPart; k += 1) {
        outputUrls[prefix + hlsBootstrapName(k)] = await storage.presignPut(
          objectKeys.bootstrapSegment(videoId, rendition.key, k),
          lifetime,
          hlsContentTypes.segment,
        );
      }
    }
    const firstWhole = window?.chunk.bootstrap ? 1 : first;
    for (let index = firstWhole; index < first + count; index += 1) {
      outputUrls[prefix + hlsSegmentName(index)] = await storage.presignPut(
        objectKeys.segment(videoId, rendition.key, index),
        lifetime,
        hlsContentTypes.segment,
      );
    }
  }
  return outputUrls;
}
