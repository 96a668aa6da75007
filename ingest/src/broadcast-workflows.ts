// Each broadcast's farm side (issue 56): ingest starts its `liveBroadcast` workflow when a publisher
// is admitted. The workflow's node plays the broadcast back from this ingest (the relay URL, with the
// broadcast's play token), so ingest needs nothing of the farm but Temporal.
import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import {
  videoTaskQueue,
  workflowIds,
  type LiveBroadcastInput,
  type LiveStreamWebhookPayload,
  type VideoWorkflows,
} from '@kino/proto/contract';
import { fromStartQuery, relayPath, type HeldBroadcast } from './publish-sessions.ts';

/** Upper bound on a start call (the client retries while Temporal is unreachable): the publisher is then refused. */
const startDeadlineMs = 10_000;

export interface BroadcastWorkflows {
  start(broadcast: HeldBroadcast): Promise<void>;
  /** Starts delivering one live stream event (deliverWebhooks, on the orchestrators' task queue). */
  deliverEvent(payload: LiveStreamWebhookPayload): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where a node plays `broadcast` from: the relay base, the broadcast's relay path (its video's id, not
 * the stream key: the workflow's history and the node never see the key), the broadcast's token.
 */
export function broadcastProbeUrl(relayUrl: string, broadcast: HeldBroadcast): string {
  return `${relayUrl}${relayPath(broadcast.videoId)}?token=${broadcast.playToken}`;
}

/** The same for the encoder, which takes the broadcast from its first frame (broadcast-backlog.ts). */
export function broadcastSourceUrl(relayUrl: string, broadcast: HeldBroadcast): string {
  return `${broadcastProbeUrl(relayUrl, broadcast)}&${fromStartQuery}`;
}

export function connectBroadcastWorkflows(config: {
  temporalAddress: string;
  namespace: string;
  relayUrl: string;
}): BroadcastWorkflows {
  const connection = Connection.lazy({ address: config.temporalAddress });
  const temporal = new Client({ connection, namespace: config.namespace });
  return {
    async start(broadcast) {
      const input: LiveBroadcastInput = {
        videoId: broadcast.videoId,
        liveStreamId: broadcast.liveStreamId,
        sourceUrl: broadcastSourceUrl(config.relayUrl, broadcast),
        probeUrl: broadcastProbeUrl(config.relayUrl, broadcast),
        startedAtMs: broadcast.startedAtMs,
      };
      await temporal.connection.withDeadline(Date.now() + startDeadlineMs, () =>
        temporal.workflow.start<VideoWorkflows['liveBroadcast']>('liveBroadcast', {
          taskQueue: videoTaskQueue,
          workflowId: workflowIds.liveBroadcast(broadcast.videoId),
          args: [input],
        }),
      );
    },
    async deliverEvent(payload) {
      await temporal.connection.withDeadline(Date.now() + startDeadlineMs, () =>
        temporal.workflow.start<VideoWorkflows['deliverWebhooks']>('deliverWebhooks', {
          taskQueue: videoTaskQueue,
          workflowId: workflowIds.deliverWebhooks(payload.videoId, randomUUID()),
          args: [{ payload }],
        }),
      );
    },
    close: () => connection.close(),
  };
}
