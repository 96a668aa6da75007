// The activities of a broadcast (issue 56, workflows/live-broadcast.ts): the live probe of the
// ingest's relay, the live encode (jobs/live.ts) with what makes the video play live once every rung
// has started (its master playlist and its renditions' rows), whether the broadcast still runs and
// its recording ended from what is stored (a node taking over: live.md "Node takeover"), the
// recording's input for its thumbnail and storyboard, and the end of the parts an ended low-latency
// playlist kept listing (live.md "The end of a broadcast").
import { ApplicationFailure } from '@temporalio/activity';
import { hlsContentTypes, objectKeys } from '@kino/proto/contract';
import { getLiveStream, isBroadcasting, listRenditions, replaceRenditions } from '@kino/database/repositories';
import { failureTypes, type EncodeOutcome, type SourceProbe } from '../activity-types.ts';
import { declaredVariant, renderMasterPlaylist } from '../master-playlist.ts';
import type { NodeJobDeps } from '../jobs/run-on-node.ts';
import { quickCallTimeoutMs, runJobOnNode } from '../jobs/run-on-node.ts';
import {
  encodeLive,
  endKeptParts,
  endStoredBroadcast,
  type LiveEncodeInput,
  type StartedRendition,
} from '../jobs/live.ts';
import { createOrchestratorMetrics } from '../metrics.ts';
import { whileHeartbeating } from './heartbeat.ts';
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

    /**
     * Whether the broadcast still runs: its stream's running broadcast is this video, its ingest's
     * lease held. Once not, no node can read it (ingest let its relay go): a takeover ends the
     * recording from what is stored instead.
     */
    async broadcastRuns({ videoId, liveStreamId }: { videoId: string; liveStreamId: string }): Promise<boolean> {
      const stream = await getLiveStream(db, liveStreamId);
      return stream !== undefined && stream.active_video_id === videoId && isBroadcasting(stream);
    },

    /**
     * The recording ended from what is stored, no node called (the publisher went while no node held
     * the broadcast): each rung as its row says the master named it, its segments as stored.
     */
    async endStoredBroadcast(input: LiveEncodeInput): Promise<EncodeOutcome[]> {
      const rows = await listRenditions(db, input.videoId);
      const announced = rows.map((row) => ({
        key: row.key,
        width: row.width,
        height: row.height,
        codecs: row.codecs,
        bandwidth: row.bandwidth,
        averageBandwidth: row.average_bandwidth ?? row.bandwidth,
        segmentCount: 0,
        frameCount: 0,
        bytesWritten: 0,
        nodeId: '',
        timings: { prepareMs: 0, startupMs: 0, encodeMs: 0, finishMs: 0 },
      }));
      // The storage proxy's heartbeat: a long broadcast's segments are looked up one by one.
      return whileHeartbeating(
        () => endStoredBroadcast({ storage }, input, announced),
        () => ({ videoId: input.videoId }),
      );
    },

    /**
     * Three target durations after a low-latency broadcast ended: each rung's playlist written
     * without parts, the parts it did not list removed (jobs/live.ts).
     */
    async endKeptParts(input: { videoId: string; renditions: string[] }): Promise<void> {
      await whileHeartbeating(
        () => endKeptParts({ storage }, input),
        () => ({ videoId: input.videoId }),
      );
    },
  };
}
