// Starting the video workflows (the contract with the orchestrator): task queue `kino-videos`,
// `processVideo` with id `video:{videoId}`, `deleteVideoContent` with id `delete:{videoId}`, both
// with input `{ videoId }`; everything else is read from the `videos` row.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';

export const VIDEO_TASK_QUEUE = 'kino-videos';
export const processWorkflowId = (videoId: string) => `video:${videoId}`;
export const deleteWorkflowId = (videoId: string) => `delete:${videoId}`;

/** Upper bound on a start call (the client retries while Temporal is unreachable): then 503. */
const START_DEADLINE_MS = 10_000;

/** Starts processing; ALLOW_DUPLICATE lets a retry run the same id again once the last run closed. */
export async function startProcessVideo(temporal: Client, videoId: string): Promise<void> {
  await temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
    temporal.workflow.start('processVideo', {
      taskQueue: VIDEO_TASK_QUEUE,
      workflowId: processWorkflowId(videoId),
      args: [{ videoId }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    }),
  );
}

/** Starts removing a deleted video's objects. A clean-up already running for it is as good as a new one. */
export async function startDeleteVideoContent(temporal: Client, videoId: string): Promise<void> {
  try {
    await temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      temporal.workflow.start('deleteVideoContent', {
        taskQueue: VIDEO_TASK_QUEUE,
        workflowId: deleteWorkflowId(videoId),
        args: [{ videoId }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      }),
    );
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

export { WorkflowExecutionAlreadyStartedError };
