// A custom thumbnail (POST /{orgID}/videos/{publicID}/thumbnails): one frame of the source made on
// an encode node without taking an encode slot, stored under the video's thumbs/. The API starts
// this and waits for its result; a workflow (rather than a call from the API) because only the
// orchestrator knows the nodes, and it brings the node-loss retries the default thumbnail has.
import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { MakeCustomThumbnailInput } from '@kino/proto/contract';
import type { Activities } from '../activities/index.ts';
import { activityHeartbeatTimeoutSeconds } from '../activity-types.ts';

const capacity = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 1.5, maximumInterval: '2 seconds' },
});

const thumbnails = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  // The activity heartbeats while the node works: an orchestrator killed midway costs seconds.
  heartbeatTimeout: `${activityHeartbeatTimeoutSeconds} seconds`,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
});

export async function makeCustomThumbnail(input: MakeCustomThumbnailInput): Promise<string> {
  // The API bounds the whole run (workflowExecutionTimeout): with no node online it answers 503.
  await capacity.waitForNodeCapacity({ freeSlot: false });
  return thumbnails.makeThumbnail(input);
}
