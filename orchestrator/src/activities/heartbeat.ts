// Every activity that can run longer than a few seconds heartbeats while it works, so a worker that
// dies mid-activity (an orchestrator killed) costs a retry at the proxy's heartbeat timeout, not at
// its start-to-close timeout, which is minutes (docs/activities.md).
import { Context } from '@temporalio/activity';
import { activityHeartbeatTimeoutSeconds } from '../activity-types.ts';

/** How often a running activity tells Temporal it is alive: four beats per heartbeat timeout. */
export const heartbeatIntervalMs = (activityHeartbeatTimeoutSeconds * 1000) / 4;

/**
 * Runs `work` and heartbeats (with `details()`, when given) at once and every few seconds until it
 * settles: whatever `work` waits on (a node's answer, storage, a slot), Temporal hears that the
 * worker is alive, and a worker that died is noticed within the heartbeat timeout.
 */
export async function whileHeartbeating<T>(work: () => Promise<T>, details?: () => unknown): Promise<T> {
  const context = Context.current();
  const beat = () => context.heartbeat(details?.());
  beat();
  const timer = setInterval(beat, heartbeatIntervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
