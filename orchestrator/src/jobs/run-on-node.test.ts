// Running a job on a node, with a fake farm and fake node: how each way a node call can end becomes
// what the workflow's retry policy acts on, that a slot is always given back, heartbeats, and a
// viewer's raise of a running encode.
import { test, vi } from 'vitest';
import assert from 'node:assert/strict';
import { CancelledFailure } from '@temporalio/common';
import { EncodeStreamEndedError, grpc, type EncodeClient, type ProbeResult__Output } from '@kino/proto';
import type { EncodeOutcome } from '../activity-types.ts';
import type { NodeLease } from '../node-farm.ts';
import { createNodeActivities } from '../activities/node-work.ts';
import { heartbeatIntervalMs } from '../activities/heartbeat.ts';
import { describeEncode, encodeTimings, nodeJobId, storageRetryDelayMs } from './run-on-node.ts';
import {
  done,
  encodeInput,
  environment,
  failureOf,
  harness,
  logger,
  nodeFailure,
  probedSource,
  rendition,
  serviceError,
} from '../testing/fake-node.ts';

test('a node that drops the connection mid-encode: NodeLost (retryable), the node is taken out, the slot freed', async () => {
  const h = harness({ encode: () => Promise.reject(serviceError(grpc.status.UNAVAILABLE, 'Connection dropped')) });
  const failure = await failureOf(
    environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput),
  );
  assert.equal(failure.type, 'NodeLost');
  assert.equal(failure.nonRetryable, false);
  assert.deepEqual(h.lost, ['node_a']);
  assert.equal(h.released.length, 1);
});

test('a busy node: NoNodeAvailable, and the node is not blamed', async () => {
  const h = harness({
    encode: () => Promise.reject(nodeFailure('NODE_BUSY', 'all 1 encode slots of this node are busy')),
  });
  const failure = await failureOf(
    environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput),
  );
  assert.equal(failure.type, 'NoNodeAvailable');
  assert.deepEqual(h.lost, []);
});

test('storage down on the node side (STORAGE_UNAVAILABLE) is retried without blaming the node', async () => {
  const h = harness({
    encode: () => Promise.reject(nodeFailure('STORAGE_UNAVAILABLE', 'storage unreachable: Connection refused')),
  });
  const failure = await failureOf(
    environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput),
  );
  assert.equal(failure.nonRetryable, false);
  assert.notEqual(failure.type, 'NodeLost');
  assert.deepEqual(h.lost, []);
});

test('the node refuses the source: InvalidSource, final, without the presigned URL in the reason', async () => {
  const h = harness({
    encode: () =>
      Promise.reject(
        nodeFailure(
          'INVALID_SOURCE',
          'the source is not a readable video: http://s3.test/u?X-Amz-Signature=x: Invalid data found when processing input',
        ),
      ),
  });
  const failure = await failureOf(
    environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput),
  );
  assert.equal(failure.type, 'InvalidSource');
  assert.equal(failure.nonRetryable, true);
  assert.equal(failure.message, 'the source is not a readable video: Invalid data found when processing input');
});

test("no slot came in the queue's wait: NoNodeAvailable before any call, final for this activity", async () => {
  const h = harness({ lease: null });
  const failure = await failureOf(
    environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput),
  );
  assert.equal(failure.type, 'NoNodeAvailable');
  assert.equal(failure.nonRetryable, true, 'the workflow waits for a node and queues a new activity');
  assert.deepEqual(h.requests, []);
  const env = environment();
  const capacity = await failureOf(
    env.run(createNodeActivities({ ...h, logger }).waitForNodeCapacity, { freeSlot: true }),
  );
  assert.equal(capacity.type, 'NoNodeAvailable');
  await env.run(createNodeActivities({ ...h, logger }).waitForNodeCapacity, { freeSlot: false });
});

test('cancellation aborts the node call, frees the slot and ends as cancelled', async () => {
  let aborted = false;
  const h = harness({
    encode: (_request, options) =>
      new Promise((_resolve, reject) => {
        const cancel = () => {
          aborted = true;
          reject(serviceError(grpc.status.CANCELLED, 'Cancelled on client'));
        };
        // As the real client: a signal aborted before the call cancels it at once.
        if (options?.signal?.aborted) cancel();
        else options?.signal?.addEventListener('abort', cancel);
        options?.onProgress?.({ percent: 10, encodedSeconds: 0.4, speed: 1 });
      }),
  });
  const env = environment();
  env.once('heartbeat', () => env.cancel());
  const error = await env
    .run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput)
    .catch((e: unknown) => e);
  assert.ok(error instanceof CancelledFailure, `cancelled, got ${String(error)}`);
  assert.ok(aborted, 'the gRPC call was cancelled');
  assert.equal(h.released.length, 1);
  assert.deepEqual(h.lost, []);
});

test('a lease the registry drops mid-encode (the node stopped heartbeating) ends the call at once: NodeLost', async () => {
  const dropped = new AbortController();
  let aborted = false;
  const h = harness({
    lease: {
      leaseId: 'lease_1',
      nodeId: 'node_a',
      address: '127.0.0.1:1',
      dropped: dropped.signal,
      urgent: false,
      raised: new AbortController().signal,
    },
    encode: (_request, options) =>
      new Promise((_resolve, reject) => {
        // A hung node: progress once, then nothing, the stream open.
        options?.signal?.addEventListener('abort', () => {
          aborted = true;
          reject(serviceError(grpc.status.CANCELLED, 'Cancelled on client'));
        });
        options?.onProgress?.({ percent: 10, encodedSeconds: 0.4, speed: 1 });
        setTimeout(() => dropped.abort(new Error('the registry dropped the node')), 10);
      }),
  });
  const failure = await failureOf(
    environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput),
  );
  assert.ok(aborted, 'the gRPC call was cancelled');
  assert.equal(failure.type, 'NodeLost');
  assert.match(failure.message, /registry dropped the node/);
  assert.equal(h.released.length, 1);
});

test('a probe, a thumbnail or a storyboard whose node the registry stops counting on (it hung) ends at once: NodeLost, the node watched no more', async () => {
  const source = { videoId: 'vid_1', storagePath: 'uploads/o/e/u/clip.mp4' };
  const jobs = [
    { what: 'probe', run: (a: ReturnType<typeof createNodeActivities>) => a.probeSource, input: source },
    {
      what: 'thumbnail',
      run: (a: ReturnType<typeof createNodeActivities>) => a.makeThumbnail,
      input: { ...source, timestampSeconds: 0.4 },
    },
    {
      what: 'storyboard',
      run: (a: ReturnType<typeof createNodeActivities>) => a.makeStoryboard,
      input: { ...source, durationSeconds: 4 },
    },
  ];
  for (const { what, run, input } of jobs) {
    const gone = new AbortController();
    let aborted = false;
    // A hung node: the call open, no answer, until the caller cancels it.
    const hungCall = (_request: unknown, options?: { signal?: AbortSignal }) =>
      new Promise((_resolve, reject) => {
        options?.signal?.addEventListener('abort', () => {
          aborted = true;
          reject(serviceError(grpc.status.CANCELLED, 'Cancelled on client'));
        });
        setTimeout(() => gone.abort(new Error('the registry dropped the node (no heartbeat, lost or left)')), 10);
      });
    const h = harness({
      probe: hungCall as never,
      thumbnail: hungCall as never,
      storyboard: hungCall as never,
      nodeGone: gone.signal,
    });
    const failure = await failureOf(
      environment().run(run(createNodeActivities({ ...h, logger })) as (i: typeof input) => Promise<unknown>, input),
    );
    assert.ok(aborted, `${what}: the gRPC call was cancelled (the node's late answer goes nowhere)`);
    assert.equal(failure.type, 'NodeLost', what);
    assert.match(failure.message, /registry dropped the node/, what);
    assert.deepEqual(h.lost, ['node_a'], `${what}: the node is taken out`);
    assert.deepEqual(h.watching, [], `${what}: the node is watched no more`);
  }
});

/** A lease of a background encode, raised by the test: the dispatcher's `raised`. */
function backgroundLease(): { lease: NodeLease; raise: () => void } {
  const raised = new AbortController();
  const lease: NodeLease = {
    leaseId: 'lease_1',
    nodeId: 'node_a',
    address: '127.0.0.1:1',
    dropped: new AbortController().signal,
    urgent: false,
    raised: raised.signal,
  };
  return { lease, raise: () => raised.abort(new Error('a viewer waits for this encode')) };
}

/** A node's encode that streams progress until `finish` is called, then answers done. */
function runningEncode(): {
  encode: EncodeClient['encode'];
  progress: () => void;
  finish: () => void;
  started: Promise<void>;
} {
  let finish = () => {};
  let progress = () => {};
  let started = () => {};
  const startedPromise = new Promise<void>((resolve) => (started = resolve));
  const encode: EncodeClient['encode'] = (_request, options) =>
    new Promise((resolve) => {
      progress = () => options?.onProgress?.({ percent: 10, encodedSeconds: 0.4, speed: 1 });
      finish = () => resolve(done);
      started();
    });
  return { encode, progress: () => progress(), finish: () => finish(), started: startedPromise };
}

/** Resolves once `check` holds (microtasks and the fake's promises settle in a few turns). */
async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

test('a background encode a viewer starts waiting for while it runs: the node is asked once to raise it, by its job id', async () => {
  const { lease, raise } = backgroundLease();
  const node = runningEncode();
  const h = harness({ lease, encode: node.encode });
  const outcome = environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput);
  await node.started;
  node.progress();
  assert.equal(h.requests[0]!.onDemand, false, 'started as background work');
  assert.deepEqual(h.raises, []);
  raise();
  await until('the raise', () => h.raises.length > 0);
  node.progress();
  node.finish();
  await outcome;
  assert.deepEqual(h.raises, ['vid_1-a7-0123456789ab'], 'once, with the job id');
});

test('a raise that overtakes the encode call (the node does not run it yet) is asked again once the node speaks; a failed raise never fails the encode', async () => {
  const { lease, raise } = backgroundLease();
  const node = runningEncode();
  const answers = [{ running: false }, { running: true }];
  const h = harness({ lease, encode: node.encode, raisePriority: () => Promise.resolve(answers.shift()!) });
  const outcome = environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput);
  await node.started;
  raise();
  await until('the first raise', () => h.raises.length === 1 && answers.length === 1);
  node.progress();
  await until('the second raise', () => h.raises.length === 2);
  node.progress();
  node.finish();
  await outcome;
  assert.equal(h.raises.length, 2);

  const failing = backgroundLease();
  const second = runningEncode();
  const h2 = harness({
    lease: failing.lease,
    encode: second.encode,
    raisePriority: () => Promise.reject(serviceError(grpc.status.UNAVAILABLE, 'Connection dropped')),
  });
  const outcome2 = environment().run(createNodeActivities({ ...h2, logger }).encodeRendition, encodeInput);
  await second.started;
  second.progress();
  failing.raise();
  await until('the raise', () => h2.raises.length === 1);
  second.finish();
  assert.equal(((await outcome2) as EncodeOutcome).nodeId, 'node_a', 'the encode stands');
  assert.deepEqual(h2.lost, []);
});

test('an urgent encode, or one raised before its call, starts as urgent work and is never raised again', async () => {
  for (const lease of [
    { ...backgroundLease().lease, urgent: true },
    (() => {
      const raised = backgroundLease();
      raised.raise();
      return raised.lease;
    })(),
  ]) {
    const h = harness({ lease });
    await environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput);
    assert.equal(h.requests[0]!.onDemand, true);
    assert.deepEqual(h.raises, []);
  }
});

test('a probe, a thumbnail and a storyboard heartbeat, naming their node, for as long as the node works', async () => {
  const video: ProbeResult__Output = { ...probedSource, videoDurationSeconds: 0 };
  const source = { videoId: 'vid_1', storagePath: 'uploads/o/e/u/clip.mp4' };
  const jobs = [
    {
      what: 'probe',
      answer: video as unknown,
      run: (a: ReturnType<typeof createNodeActivities>) => a.probeSource,
      input: source,
    },
    {
      what: 'thumbnail',
      answer: { width: 640, height: 360, bytes: 1 },
      run: (a: ReturnType<typeof createNodeActivities>) => a.makeThumbnail,
      input: { ...source, timestampSeconds: 0.4 },
    },
    {
      what: 'storyboard',
      answer: {},
      run: (a: ReturnType<typeof createNodeActivities>) => a.makeStoryboard,
      input: { ...source, durationSeconds: 4 },
    },
  ];
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  try {
    for (const { what, answer, run, input } of jobs) {
      let called!: () => void;
      const calledNode = new Promise<void>((resolve) => (called = resolve));
      let answerNode!: (value: unknown) => void;
      const nodeCall = () => {
        called();
        return new Promise((resolve) => (answerNode = resolve));
      };
      const h = harness({ probe: nodeCall as never, thumbnail: nodeCall as never, storyboard: nodeCall as never });
      const env = environment();
      const beats: unknown[] = [];
      env.on('heartbeat', (details: unknown) => beats.push(details));
      const running = env.run(
        run(createNodeActivities({ ...h, logger })) as (i: typeof input) => Promise<unknown>,
        input,
      );
      await calledNode;
      // The node takes a minute: the beats go on every few seconds meanwhile.
      vi.advanceTimersByTime(60_000);
      answerNode(answer);
      await running;
      // (A probe beats once more before, while it looks at the upload in storage.)
      const whileOnNode = beats.filter((beat) => (beat as { nodeId?: string } | undefined)?.nodeId);
      assert.equal(
        whileOnNode.length,
        1 + 60_000 / heartbeatIntervalMs,
        `${what}: one beat at the call, then every ${heartbeatIntervalMs} ms`,
      );
      for (const beat of whileOnNode) assert.deepEqual(beat, { nodeId: 'node_a', what });
    }
  } finally {
    vi.useRealTimers();
  }
});

test('each failure reason a node answers with has its own retry rule; only a lost connection blames the node', async () => {
  const input = {
    videoId: 'vid_1',
    storagePath: 'uploads/o/e/u/clip.mp4',
    renditions: [rendition!],
    durationSeconds: 4,
  };
  const rules: Array<[string, Error, { type: string; final: boolean; lost: boolean }]> = [
    [
      'invalid source',
      nodeFailure('INVALID_SOURCE', 'not a video'),
      { type: 'InvalidSource', final: true, lost: false },
    ],
    ['source gone', nodeFailure('SOURCE_NOT_FOUND', 'no object'), { type: 'InvalidSource', final: true, lost: false }],
    [
      'malformed request',
      nodeFailure('INVALID_REQUEST', 'no URL for 360p/seg-00003.m4s'),
      { type: 'InvalidRequest', final: true, lost: false },
    ],
    [
      'thumbnail past the end',
      nodeFailure('TIMESTAMP_OUT_OF_RANGE', 'no frame'),
      { type: 'InvalidRequest', final: true, lost: false },
    ],
    ['node busy', nodeFailure('NODE_BUSY', 'draining'), { type: 'NoNodeAvailable', final: false, lost: false }],
    [
      'storage unavailable',
      nodeFailure('STORAGE_UNAVAILABLE', 'could not upload'),
      { type: 'StorageUnavailable', final: false, lost: false },
    ],
    ['URL refused', nodeFailure('URL_REFUSED', 'HTTP 403'), { type: 'UrlRefused', final: false, lost: false }],
    [
      'ffmpeg failed',
      nodeFailure('FFMPEG_FAILED', 'Cannot allocate memory'),
      { type: 'NodeWorkFailed', final: false, lost: false },
    ],
    ['node internal error', nodeFailure('INTERNAL', 'EMFILE'), { type: 'NodeWorkFailed', final: false, lost: false }],
    // No JobFailure: the node did not answer.
    [
      'connection refused',
      serviceError(grpc.status.UNAVAILABLE, 'No connection established'),
      { type: 'NodeLost', final: false, lost: true },
    ],
    [
      'connection reset',
      serviceError(grpc.status.INTERNAL, 'Received RST_STREAM with code 2'),
      { type: 'NodeLost', final: false, lost: true },
    ],
    [
      'cancelled, not by us',
      serviceError(grpc.status.CANCELLED, 'Call cancelled'),
      { type: 'NodeLost', final: false, lost: true },
    ],
    [
      'deadline',
      serviceError(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded'),
      { type: 'NodeLost', final: false, lost: true },
    ],
    [
      'stream ended without done',
      new EncodeStreamEndedError('127.0.0.1:1'),
      { type: 'NodeLost', final: false, lost: true },
    ],
  ];
  for (const [what, error, rule] of rules) {
    const h = harness({ encode: () => Promise.reject(error) });
    const failure = await failureOf(environment().run(createNodeActivities({ ...h, logger }).encodeRenditions, input));
    assert.deepEqual(
      { type: failure.type, final: failure.nonRetryable, lost: h.lost.length > 0 },
      rule,
      `${what}: ${failure.message}`,
    );
    assert.equal(h.released.length, 1, `${what}: the slot is given back`);
  }
  // A lost node's work is retried at once: the failure was the node's.
  const lostNode = await failureOf(
    environment().run(
      createNodeActivities({
        ...harness({ encode: () => Promise.reject(serviceError(grpc.status.UNAVAILABLE, 'Connection dropped')) }),
        logger,
      }).encodeRenditions,
      input,
    ),
  );
  assert.ok(
    (lostNode.nextRetryDelay as number) <= 100,
    `retried at once, not after ${String(lostNode.nextRetryDelay)}`,
  );
  // Storage outages outlast blips: the next attempt waits longer than the policy's first interval.
  const h = harness({ encode: () => Promise.reject(nodeFailure('STORAGE_UNAVAILABLE', 'could not upload')) });
  const storage = await failureOf(environment().run(createNodeActivities({ ...h, logger }).encodeRenditions, input));
  assert.equal(storage.nextRetryDelay, 15_000);
});

test('an Encode call is named by its kind and renditions in logs, failures and metrics', () => {
  const spec = (key: string) => ({ key });
  assert.deepEqual(describeEncode({ whole: { renditions: [spec('360p'), spec('720p')] } }), {
    what: 'encode of 360p, 720p',
    kind: 'whole',
    renditionKeys: ['360p', '720p'],
  });
  assert.deepEqual(describeEncode({ chunk: { index: 3, renditions: [spec('360p')] } }), {
    what: 'chunk 3 of 360p',
    kind: 'chunk',
    renditionKeys: ['360p'],
  });
  assert.deepEqual(describeEncode({ audioTrack: { audioCodec: 'aac' } }), {
    what: 'audio track',
    kind: 'audio',
    renditionKeys: ['audio'],
  });
});

test("an encode's time is cut at the call, the first progress, 100 % and done; without progress, all of it is startup", () => {
  assert.deepEqual(
    encodeTimings({ startedAt: 0, callStartedAt: 100, firstEventAt: 300, encodedAllAt: 1300, finishedAt: 1500 }),
    {
      prepareMs: 100,
      startupMs: 200,
      encodeMs: 1000,
      finishMs: 200,
    },
  );
  assert.deepEqual(
    encodeTimings({
      startedAt: 0,
      callStartedAt: 100,
      firstEventAt: undefined,
      encodedAllAt: undefined,
      finishedAt: 900,
    }),
    {
      prepareMs: 100,
      startupMs: 800,
      encodeMs: 0,
      finishMs: 0,
    },
  );
});

test('storage outages are retried after 15 s, doubling per attempt up to 5 minutes', () => {
  assert.deepEqual([1, 2, 3, 5, 6, 20].map(storageRetryDelayMs), [15_000, 30_000, 60_000, 240_000, 300_000, 300_000]);
});

test('a node job id: one per activity of a run, safe as a file name', () => {
  assert.equal(nodeJobId('vid_1', '7', '0123456789ab'), 'vid_1-a7-0123456789ab');
  assert.equal(nodeJobId('vid_1', 'x/y', 'ab.cd/ef-gh'), 'vid_1-ax_y-ab_cd_efgh');
  // Two runs started in the same minute (UUIDv7: the time first) get jobs of their own.
  assert.notEqual(
    nodeJobId('vid_1', '4', '01a223bf-2b84-7243-85f8-f90b8e748003'),
    nodeJobId('vid_1', '4', '01a223bf-9a42-7616-8571-a2f1970db4f7'),
  );
});
