// Starting the video workflows. Task queue, workflow ids and inputs are the shared contract's
// (@kino/proto/contract); the workflow types are the orchestrator's workflow functions, so a
// misspelt name or a wrong input fails to compile. Both take `{ videoId }`: everything else is read
// from the `videos` row.
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { videoTaskQueue, workflowIds } from '@kino/proto/contract';
import type * as orchestratorWorkflows from '../orchestrator/workflows/index.ts';

type Workflows = typeof orchestratorWorkflows;

/** Upper bound on a start call (the client retries while Temporal is unreachable): then 503. */
const START_DEADLINE_MS = 10_000;

/**
 * Starts the workflow the orchestrator exports as `name` (Temporal names a workflow after its
 * function), with arguments typed by that function.
 */
async function startWorkflow<Name extends keyof Workflows>(
  temporal: Client,
  name: Name,
  options: WorkflowStartOptions<Workflows[Name]>,
): Promise<void> {
  await temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () => temporal.workflow.start<Workflows[Name]>(name, options));
}

/** Starts processing; ALLOW_DUPLICATE lets a retry run the same id again once the last run closed. */
export async function startProcessVideo(temporal: Client, videoId: string): Promise<void> {
  await startWorkflow(temporal, 'processVideo', {
    taskQueue: videoTaskQueue,
    workflowId: workflowIds.processVideo(videoId),
    args: [{ videoId }],
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  });
}

/** Starts removing a deleted video's objects. A clean-up already running for it is as good as a new one. */
export async function startDeleteVideoContent(temporal: Client, videoId: string): Promise<void> {
  try {
    await startWorkflow(temporal, 'deleteVideoContent', {
      taskQueue: videoTaskQueue,
      workflowId: workflowIds.deleteVideoContent(videoId),
      args: [{ videoId }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

export { WorkflowExecutionAlreadyStartedError };
