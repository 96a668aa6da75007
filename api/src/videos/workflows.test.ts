import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { restartProcessVideo } from './workflows.ts';

/** A Temporal client whose processVideo run is open until `closeAfterMs`, recording each start. */
function temporalWithOpenRun(closeAfterMs: number) {
  // The run closes when its timer fires, not when Date.now() passes a mark: a timer may fire a
  // millisecond before the clock reads its deadline, and a start then found the run still open.
  let open = true;
  const closed = new Promise<void>((resolve) =>
    setTimeout(() => {
      open = false;
      resolve();
    }, closeAfterMs),
  );
  const starts: string[] = [];
  const withDeadline = async <T>(deadline: number, run: () => Promise<T>): Promise<T> =>
    Promise.race([
      run(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('deadline exceeded')), deadline - Date.now()),
      ),
    ]);
  const client = {
    connection: { withDeadline },
    workflow: {
      async start(_name: string, options: { workflowId: string }) {
        if (open) throw new WorkflowExecutionAlreadyStartedError('already started', options.workflowId, 'processVideo');
        starts.push(options.workflowId);
      },
      getHandle: () => ({
        // The previous run failed: its result throws when it closes.
        result: () => closed.then(() => Promise.reject(new Error('workflow failed'))),
      }),
    },
  };
  return { client: client as unknown as Client, starts };
}

describe('restartProcessVideo', () => {
  it('waits for the previous run to close, then starts', async () => {
    const { client, starts } = temporalWithOpenRun(300);
    await restartProcessVideo(client, 'vid_1', 5_000);
    assert.equal(starts.length, 1);
  });

  it('gives up after the bound with WorkflowExecutionAlreadyStartedError (the route answers 409)', async () => {
    const { client, starts } = temporalWithOpenRun(60_000);
    await assert.rejects(restartProcessVideo(client, 'vid_1', 200), WorkflowExecutionAlreadyStartedError);
    assert.equal(starts.length, 0);
  });
});
