// The activities of a broadcast (issue 56, workflows/live-broadcast.ts): the live probe of the
// ingest's relay, the live encode (jobs/live.ts) with what makes the video play live once every rung
// has started (its master playlist and its renditions' rows), and the recording's input for its
// thumbnail and storyboard.
import { ApplicationFailure } from '@temporalio/activity';
import { hlsContentTypes, objectKeys } from '@kino/proto/contract';
import { replaceRenditions } from '@kino/database/repositories';
import { failureTypes, type EncodeOutcome, type SourceProbe } from '../activity-types.ts';
import { declaredVariant, renderMasterPlaylist } from '../master-playlist.ts';
import type { NodeJobDeps } from '../jobs/run-on-node.ts';
import { quickCallTimeoutMs, runJobOnNode } from '../jobs/run-on-node.ts';
import { encodeLive, type LiveEncodeInput, type StartedRendition } from '../jobs/live.ts';
import { createOrchestratorMetrics } from '../metrics.ts';
import type { ActivityDeps } from './index.ts';
import { renditionRowOf } from './video-records.ts';

export function createLiveBroadcastActivities({
  db,
  storage,
  farm,
  logger,
  metrics = createOrchestratorMetrics(),
}: Pick<ActivityDeps, 'db' | 'storage' | 'farm' | 'logger' | 'metrics'>) {
  const deps: NodeJobDeps = { storage, farm, logger, metrics };
  return {
    /**
     * ffprobe of the broadcast as it is published, on a node (no slot): its picture, rate and sound.
     * Nothing published yet that ffprobe can describe is InvalidSource (the broadcast fails).
     */
    async probeLiveSource({ videoId, sourceUrl }: { videoId: string; sourceUrl: string }): Promise<SourceProbe> {
      const result = await runJobOnNode(deps, videoId, 'live probe', { slot: false }, ({ node, jobId, signal }) =>
        farm.client(node).probe({ jobId, inputUrl: sourceUrl, live: true }, { signal, timeoutMs: quickCallTimeoutMs }),
      );
      if (!(result.width > 0 && result.height > 0))
        throw ApplicationFailure.nonRetryable('the broadcast has no picture', failureTypes.invalidSource);
      return { ...result, frameCount: Number(result.frameCount), sizeBytes: Number(result.sizeBytes) };
    },

    /**
     * The broadcast's ladder on one node for its whole length (jobs/live.ts). Once every rung has
     * started: the master playlist (rates as planned, CODECS as made) and the renditions' rows, so
     * delivery serves the live playlists. Answers each rung's outcome when the publisher is gone.
     */
    async encodeLive(input: LiveEncodeInput): Promise<EncodeOutcome[]> {
      return encodeLive(deps, input, async (started: StartedRendition[]) => {
        const plans = input.renditions;
        const variants = plans.map((plan, k) => declaredVariant(plan, started[k]!));
        await storage.put(objectKeys.master(input.videoId), renderMasterPlaylist(variants), hlsContentTypes.playlist);
        await replaceRenditions(
          db,
          input.videoId,
          plans.map((plan, k) =>
            renditionRowOf(input.videoId, {
              plan,
              outcome: {
                key: plan.key,
                width: started[k]!.width,
                height: started[k]!.height,
                codecs: started[k]!.codecs,
                bandwidth: variants[k]!.bandwidth,
                averageBandwidth: variants[k]!.averageBandwidth,
                // Unknown while it grows: delivery checks no segment number against it (0).
                segmentCount: 0,
                frameCount: 0,
                bytesWritten: 0,
                nodeId: '',
                timings: { prepareMs: 0, startupMs: 0, encodeMs: 0, finishMs: 0 },
              },
            }),
          ),
        );
        logger.info({ videoId: input.videoId, renditions: plans.map((p) => p.key) }, 'broadcast playing live');
      });
    },
  };
}
