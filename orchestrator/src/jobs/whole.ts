// The whole-encode job: one or more renditions (one for a fanned-out ladder, the whole ladder
// otherwise) of the whole video in one encode on one node: one decode of the source, one slot, one
// ffmpeg. Heartbeats every few seconds with the latest progress while the node streams; a node that
// dies or stalls is taken out of rotation and the attempt fails as NodeLost, so Temporal retries it
// on another node; a retry encodes every rendition again. Cancellation aborts the call (the node
// stops ffmpeg).
import type { EncodeInput, EncodeOutcome, EncodeRenditionInput } from '../activity-types.ts';
import { encodeOnNode, outcomesOf, renditionSpecOf } from './encode.ts';
import { presignHlsOutputs, urlLifetimeSeconds } from './presign.ts';
import type { NodeJobDeps } from './run-on-node.ts';

/**
 * Presigns every output of `renditions` (`<key>/<file>`), takes a slot, calls Encode on the node and
 * heartbeats while it streams. Outcomes in `renditions` order.
 */
export async function encodeWhole(deps: NodeJobDeps, input: EncodeInput): Promise<EncodeOutcome[]> {
  const outputUrls = await presignHlsOutputs(
    deps.storage,
    input.videoId,
    input.renditions,
    input.durationSeconds,
    undefined,
    urlLifetimeSeconds(),
  );
  const { done, node, timings } = await encodeOnNode(deps, input, {
    whole: {
      renditions: input.renditions.map(renditionSpecOf),
      outputUrls,
      measureQuality: input.measureQuality ?? false,
    },
  });
  return outcomesOf(input.renditions, done, node, timings);
}

/**
 * The same for one rendition. Only workflows started before the one encode protocol call it (and
 * their histories name it); kept registered so they finish. Remove once none runs.
 */
export async function encodeOneRendition(
  deps: NodeJobDeps,
  { videoId, storagePath, rendition, durationSeconds }: EncodeRenditionInput,
): Promise<EncodeOutcome> {
  // Its workflows never sent a probe: the encode probes the source once (sourceOf).
  const [outcome] = await encodeWhole(deps, { videoId, storagePath, renditions: [rendition], durationSeconds });
  return outcome!;
}
