// deleteVideoContent (id `delete:{videoId}`): the API soft-deletes a video at once and starts this
// workflow to remove its files (the spec: within 24 hours). Analytics are kept.
import { log, getExternalWorkflowHandle, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { workflowIds, type DeleteVideoContentInput } from '@kino/proto/contract';
import { activityHeartbeatTimeoutSeconds } from '../activity-types.ts';

/** Deleting a video's objects heartbeats: an orchestrator killed midway costs a retry in seconds. */
const storage = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: `${activityHeartbeatTimeoutSeconds} seconds`,
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 20 },
});

/** An encode cancelled mid-upload may still land a segment after the first sweep; a second one catches it. */
const lateWriteGrace = '10 minutes';

export async function deleteVideoContent({ videoId }: DeleteVideoContentInput): Promise<{ removed: number }> {
  try {
    // Stop processing if it still runs: no point encoding a deleted video.
    await getExternalWorkflowHandle(workflowIds.processVideo(videoId)).cancel();
  } catch {
    // Not running (finished, failed, or never started): nothing to stop.
  }
  let { removed } = await storage.removeVideoContent({ videoId });
  await sleep(lateWriteGrace);
  removed += (await storage.removeVideoContent({ videoId })).removed;
  log.info('video content removed', { videoId, removed });
  return { removed };
}
