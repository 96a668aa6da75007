// Starting the video workflows. Task queue, workflow ids, inputs and the workflows' signatures are
// the shared contract's (@kino/proto/contract): the API starts each workflow by its entry in
// `VideoWorkflows`, which the orchestrator's functions are checked against, so a misspelt name or a
// wrong input fails to compile on both sides. Processing and content removal take `{ videoId }`:
// everything else is read from the `videos` row.
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import {
  videoTaskQueue,
  workflowIds,
  type AddAudioTrackInput,
  type DeliverWebhooksInput,
  type GenerateCaptionsInput,
  type MakeCustomThumbnailInput,
  type MakeFrameAccurateClipInput,
  type VideoWorkflows,
} from '@kino/proto/contract';

/** Upper bound on a start call (the client retries while Temporal is unreachable): then 503. */
const START_DEADLINE_MS = 10_000;

/**
 * Starts the workflow named `name` (Temporal names a workflow after the orchestrator's function),
 * with arguments typed by its signature in VideoWorkflows.
 */
async function startWorkflow<Name extends keyof VideoWorkflows>(
  temporal: Client,
  name: Name,
  options: WorkflowStartOptions<VideoWorkflows[Name]>,
): Promise<void> {
  await temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
    temporal.workflow.start<VideoWorkflows[Name]>(name, options),
  );
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

/**
 * Starts encoding a frame-accurate clip's first and last segments. Its id is the clip's processing
 * id, so deleting the clip cancels it as it cancels any processing.
 */
export async function startMakeFrameAccurateClip(temporal: Client, input: MakeFrameAccurateClipInput): Promise<void> {
  await startWorkflow(temporal, 'makeFrameAccurateClip', {
    taskQueue: videoTaskQueue,
    workflowId: workflowIds.processVideo(input.videoId),
    args: [input],
  });
}

/** Starts making a track added to a ready video: one run per track (its rendition key is never given twice). */
export async function startAddAudioTrack(temporal: Client, input: AddAudioTrackInput): Promise<void> {
  await startWorkflow(temporal, 'addAudioTrack', {
    taskQueue: videoTaskQueue,
    workflowId: workflowIds.addAudioTrack(input.videoId, input.renditionKey),
    args: [input],
  });
}

/** How long a retry waits for the previous run to close before answering 409 processing_in_progress. */
const PREVIOUS_RUN_CLOSE_WAIT_MS = 15_000;

/**
 * Starts processing a failed video again. The previous run marks the video failed and then still
 * finishes its own steps (the webhook's start, clean-up), so a retry made at once can find it open:
 * it waits for that run to close, within a bound, rather than refusing a retry the caller could not
 * know was early. Still open after the bound: WorkflowExecutionAlreadyStartedError.
 */
export async function restartProcessVideo(
  temporal: Client,
  videoId: string,
  closeWaitMs = PREVIOUS_RUN_CLOSE_WAIT_MS,
): Promise<void> {
  try {
    await startProcessVideo(temporal, videoId);
    return;
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  const previous = temporal.workflow.getHandle(workflowIds.processVideo(videoId));
  // Any ending counts (the previous run failed: its result throws); the deadline ends the wait.
  await temporal.connection.withDeadline(Date.now() + closeWaitMs, () => previous.result()).catch(() => undefined);
  await startProcessVideo(temporal, videoId);
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

/** How long a custom thumbnail may take, waiting for a node included, before the API answers 503. */
const CUSTOM_THUMBNAIL_DEADLINE_MS = 90_000;

/** Makes a custom thumbnail on a node and returns its storage key (the API waits for it). */
export async function makeCustomThumbnail(
  temporal: Client,
  input: MakeCustomThumbnailInput,
  thumbnailId: string,
): Promise<string> {
  const handle = await temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
    temporal.workflow.start<VideoWorkflows['makeCustomThumbnail']>('makeCustomThumbnail', {
      taskQueue: videoTaskQueue,
      workflowId: workflowIds.makeCustomThumbnail(input.videoId, thumbnailId),
      args: [input],
      workflowExecutionTimeout: CUSTOM_THUMBNAIL_DEADLINE_MS,
    }),
  );
  return handle.result();
}

export { WorkflowExecutionAlreadyStartedError };

/**
 * Starts delivering one video event (deliverWebhooks: every subscribed webhook, each retried with
 * backoff for about 17 hours). Once started it survives the API's restart.
 */
export async function startDeliverWebhooks(
  temporal: Client,
  input: DeliverWebhooksInput,
  deliveryId: string,
): Promise<void> {
  await startWorkflow(temporal, 'deliverWebhooks', {
    taskQueue: videoTaskQueue,
    workflowId: workflowIds.deliverWebhooks(input.payload.videoId, deliveryId),
    args: [input],
  });
}

/**
 * Starts making a caption track from a ready video's speech. A run for the same video and language
 * already going is the same ask: true when this call started one, false when one was running.
 */
export async function startGenerateCaptions(temporal: Client, input: GenerateCaptionsInput): Promise<boolean> {
  try {
    await startWorkflow(temporal, 'generateCaptions', {
      taskQueue: videoTaskQueue,
      workflowId: workflowIds.generateCaptions(input.videoId, input.language),
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    });
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}
