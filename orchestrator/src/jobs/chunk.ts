// The chunk job (docs/architecture.md#chunked-encoding): every rendition of the input for one
// chunk's window, from one decode, segments numbered for the whole video, audio copied from the
// video's audio track. Retried like any encode (a lost node costs this chunk only). When done, its
// record goes to storage (after its segments), so a later run of the same plan (a retry after
// `failed`) finds it (findFinishedChunks) and does not encode it again.
import { createHash } from 'node:crypto';
import type { ChunkEncode } from '@kino/proto';
import { bootstrapWindowPassesFirstSegment, objectKeys, workContentTypes } from '@kino/proto/contract';
import type { EncodeChunkInput, EncodeOutcome, FinishedChunks } from '../activity-types.ts';
import type { QueuePlacement } from '../node-farm.ts';
import { whileHeartbeating } from '../activities/heartbeat.ts';
import { joinFirstSegmentsOnceStored } from '../first-segment-join.ts';
import { encodeOnNode, outcomesOf, renditionSpecOf } from './encode.ts';
import { presignHlsOutputs, urlLifetimeSeconds } from './presign.ts';
import type { NodeJobDeps } from './run-on-node.ts';

/** Encodes one chunk and records its outcomes in storage. Outcomes in renditions order. */
export async function encodeChunk(deps: NodeJobDeps, input: EncodeChunkInput): Promise<EncodeOutcome[]> {
  const { storage } = deps;
  const lifetime = urlLifetimeSeconds();
  const outputUrls = await presignHlsOutputs(
    storage,
    input.videoId,
    input.renditions,
    input.durationSeconds,
    input,
    lifetime,
  );
  const chunk: ChunkEncode = {
    renditions: input.renditions.map(renditionSpecOf),
    outputUrls,
    index: input.chunk.index,
    startSeconds: input.chunk.startSeconds,
    durationSeconds: input.chunk.durationSeconds,
    firstSegment: input.chunk.firstSegment,
    audioUrl: input.audioTrackKey ? await storage.presignGet(input.audioTrackKey, lifetime) : '',
    measureQuality: input.measureQuality ?? false,
    audioHead: input.audioHead ?? false,
    bootstrap: input.chunk.bootstrap ?? false,
    inputOffsetSeconds: input.chunk.inputOffsetSeconds ?? 0,
    inputIsSegment: input.chunk.inputIsSegment ?? false,
  };
  const joinStopped = new AbortController();
  // The run of the rest of the first segment and the next run's segments ends long after its bootstrap segments.
  const earlyJoin = bootstrapWindowPassesFirstSegment(input.chunk)
    ? joinFirstSegmentOnceStored(deps, input, joinStopped.signal)
    : undefined;
  const { done, node, timings } = await encodeOnNode(deps, input, { chunk }, chunkPlacement(input)).finally(() =>
    joinStopped.abort(),
  );
  await earlyJoin;
  if (isFirstBootstrapRun(input)) await raiseRestOfFirstSegment(deps, input);
  const outcomes = outcomesOf(input.renditions, done, node, timings);
  await whileHeartbeating(() =>
    storage.put(
      objectKeys.chunkRecord(input.videoId, input.planId, input.recordName),
      JSON.stringify(outcomes),
      workContentTypes.chunkRecord,
    ),
  );
  return outcomes;
}

/** The urgent first 2 s of a just-in-time video's first segment, made as bootstrap segments (issue 55). */
function isFirstBootstrapRun({ chunk, justInTime }: Pick<EncodeChunkInput, 'chunk' | 'justInTime'>): boolean {
  return chunk.bootstrap === true && chunk.index === 0 && justInTime?.urgent === true;
}

/**
 * The first run encoded, the rest of the first segment (the second bootstrap run from 2 s, queued
 * beside it at nice 10) becomes urgent at once, whether anybody watches yet or not: a player without
 * `bootstrap` waits for the whole 6 s segment, and one with it asks for the rest within seconds. Until
 * now the run stays niced, not to take the cores from the first. A failure here slows the rest, never
 * fails this encode.
 */
async function raiseRestOfFirstSegment(
  { farm, logger }: Pick<NodeJobDeps, 'farm' | 'logger'>,
  { videoId, renditions }: Pick<EncodeChunkInput, 'videoId' | 'renditions'>,
): Promise<void> {
  await farm
    .raiseSegment({ videoId, rendition: renditions[0]!.key, segment: 0 })
    .catch((error: unknown) => logger.warn({ err: error, videoId }, 'could not raise the rest of the first segment'));
}

/**
 * The first segment joined once its bootstrap segments are stored, while this run goes on (a player
 * without `bootstrap` waits for it): first-segment-join.ts. A failure here leaves the join to the
 * workflow, after the run; it never fails this encode.
 */
async function joinFirstSegmentOnceStored(
  { storage, logger }: Pick<NodeJobDeps, 'storage' | 'logger'>,
  { videoId, renditions }: Pick<EncodeChunkInput, 'videoId' | 'renditions'>,
  stopped: AbortSignal,
): Promise<void> {
  const keys = renditions.map((r) => r.key);
  await joinFirstSegmentsOnceStored(storage, videoId, keys, stopped)
    .then((joined) => joined && logger.info({ videoId }, 'first segment joined while its second run goes on'))
    .catch((error: unknown) => logger.warn({ err: error, videoId }, 'could not join the first segment early'));
}

/**
 * A chunk's place in the encode queue: a just-in-time run's entry says which segments it makes (a
 * viewer's request raises it), urgent when someone waits for it already; any other chunk is plain
 * queue work (undefined).
 */
export function chunkPlacement({
  justInTime,
  renditions,
  chunk,
}: Pick<EncodeChunkInput, 'justInTime' | 'renditions' | 'chunk'>): QueuePlacement | undefined {
  if (!justInTime) return undefined;
  return {
    priority: justInTime.urgent ? 1 : 0,
    rank: justInTime.rank,
    ...(justInTime.ahead ? { ahead: true } : {}),
    segments: {
      renditions: renditions.map((r) => r.key),
      firstSegment: chunk.firstSegment,
      segmentCount: chunk.segmentCount,
    },
  };
}

/**
 * The chunks of a plan already done in storage. The plan's id hashes everything the chunks'
 * bytes depend on (the source, the renditions, the chunk windows), so a video retried with the
 * same parameters reuses its chunks and one with other parameters starts afresh.
 */
export async function findFinishedChunks(
  { storage }: Pick<NodeJobDeps, 'storage'>,
  { videoId, plan }: { videoId: string; plan: unknown },
): Promise<FinishedChunks> {
  const planId = createHash('sha256').update(JSON.stringify(plan)).digest('hex').slice(0, 16);
  const finished: FinishedChunks['finished'] = {};
  const prefix = objectKeys.chunkRecord(videoId, planId, '');
  // One read per finished chunk: seconds for a long video.
  await whileHeartbeating(async () => {
    for (const key of await storage.list(prefix.slice(0, prefix.lastIndexOf('/') + 1))) {
      const name = key.slice(key.lastIndexOf('/') + 1).replace(/\.json$/, '');
      const body = await storage.get(key);
      if (body) finished[name] = JSON.parse(body.toString('utf8')) as EncodeOutcome[];
    }
  });
  return { planId, finished };
}
