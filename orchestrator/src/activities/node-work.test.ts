// The node activities with a fake farm and fake node: how each way a node call can end becomes what
// the workflow's retry policy acts on, and that a slot is always given back.
import { test, vi } from 'vitest';
import assert from 'node:assert/strict';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import {
  EncodeStreamEndedError,
  grpc,
  jobFailureOf,
  jobFailureStatus,
  type EncodeClient,
  type EncodeDone__Output,
  type EncodeRequest,
  type FailureReason,
  type ProbeResult__Output,
} from '@kino/proto';
import { createLogger, type Storage } from '@kino/infra';
import { planLadder } from '../ladder.ts';
import type { EncodeOutcome, SourceProbe } from '../activity-types.ts';
import type { AcquireRequest, FarmNode, NodeFarm, NodeLease } from '../node-farm.ts';
import { createNodeActivities } from './node-work.ts';
import { heartbeatIntervalMs } from './heartbeat.ts';
import { defaultEncodingParameters } from '@kino/proto/contract';

const logger = createLogger('test', 'silent');
const [rendition] = planLadder('standard', { width: 640, height: 360, frameRate: 30, hasAudio: true }, defaultEncodingParameters);
const encodeInput = { videoId: 'vid_1', storagePath: 'uploads/o/e/u/clip.mp4', rendition: rendition!, durationSeconds: 4 };

/** A call that failed without an answer from the node (the transport's error: no JobFailure). */
function serviceError(code: grpc.status, details: string): grpc.ServiceError {
  return Object.assign(new Error(`${code} ${grpc.status[code]}: ${details}`), { code, details, metadata: new grpc.Metadata() });
}

/** A call the node failed with `reason`, as the client hands it over (the JobFailure trailer decoded). */
function nodeFailure(reason: FailureReason, details: string): Error {
  const status = jobFailureStatus(reason, details);
  return jobFailureOf(Object.assign(new Error(`${status.code} ${grpc.status[status.code]}: ${details}`), status))!;
}

const done: EncodeDone__Output = {
  bytesWritten: 330_000,
  files: ['360p/playlist.m3u8', '360p/init.mp4', '360p/seg-00000.m4s'],
  renditions: [
    {
      key: '360p',
      segmentCount: 1,
      peakBandwidth: 760_000,
      averageBandwidth: 640_000,
      vmaf: 0,
      psnr: 0,
      qualityFrames: 0,
      codecs: 'avc1.64001e,mp4a.40.2',
      frameCount: 120,
      width: 640,
      height: 360,
      pixelFormat: 'yuv420p',
      audioFormat: 'aac',
      durationSeconds: 4,
      bytesWritten: 330_000,
      segments: [{ name: 'seg-00000.m4s', durationSeconds: 4, sizeBytes: 320_000 }],
    },
  ],
};

/** What the node's ffprobe says of the source, when an encode activity has to ask (no probe in its input). */
const probedSource: ProbeResult__Output = {
  durationSeconds: 4, videoDurationSeconds: 4, width: 640, height: 360, frameRate: 30, frameCount: 120, videoCodec: 'h264', pixelFormat: 'yuv420p',
  hasAudio: true, audioCodec: 'aac', audioChannels: 2, audioSampleRate: 48000, formatName: 'mov', sizeBytes: 1000,
};

interface Harness {
  farm: NodeFarm;
  storage: Storage;
  released: NodeLease[];
  lost: string[];
  requests: EncodeRequest[];
  /** The job ids RaisePriority was called with. */
  raises: string[];
  /** What each encode asked the queue for. */
  acquired: AcquireRequest[];
}

/** A farm with one node; `encode` plays the node's side of the call. */
function harness({
  /** null: no node has a free slot. */
  lease = { leaseId: 'lease_1', nodeId: 'node_a', address: '127.0.0.1:1', dropped: new AbortController().signal, urgent: false, raised: new AbortController().signal } as NodeLease | null,
  encode = (() => Promise.resolve(done)) as EncodeClient['encode'],
  probe = (() => Promise.resolve(probedSource)) as EncodeClient['probe'],
  thumbnail = (() => Promise.resolve({ width: 640, height: 360, bytes: 1 })) as EncodeClient['thumbnail'],
  storyboard = (() => Promise.reject(new Error('no storyboard'))) as EncodeClient['storyboard'],
  raisePriority = (() => Promise.resolve({ running: true })) as EncodeClient['raisePriority'],
  /** null: the uploaded object does not exist. */
  objectSize = 1000 as number | null,
  liveNodes = 1,
} = {}): Harness {
  const released: NodeLease[] = [];
  const lost: string[] = [];
  const requests: EncodeRequest[] = [];
  const raises: string[] = [];
  const acquired: AcquireRequest[] = [];
  const client = {
    address: '127.0.0.1:1',
    probe,
    encode: (request: EncodeRequest, options?: Parameters<EncodeClient['encode']>[1]) => {
      requests.push(request);
      return encode(request, options);
    },
    thumbnail,
    storyboard,
    raisePriority: (request: { jobId: string }, options?: Parameters<EncodeClient['raisePriority']>[1]) => {
      raises.push(request.jobId);
      return raisePriority(request, options);
    },
    close: () => {},
  } as unknown as EncodeClient;
  const farm: NodeFarm = {
    hasLiveNode: ({ freeSlot }) => Promise.resolve(!freeSlot || lease !== null),
    liveNodeCount: () => Promise.resolve(liveNodes),
    acquire: (request) => {
      acquired.push(request);
      return Promise.resolve(lease ?? undefined);
    },
    release: (l) => {
      released.push(l);
      return Promise.resolve();
    },
    pickNode: () => Promise.resolve({ nodeId: 'node_a', address: '127.0.0.1:1' } as FarmNode),
    markLost: (nodeId) => {
      lost.push(nodeId);
      return Promise.resolve();
    },
    client: () => client,
    close: () => Promise.resolve(),
  };
  const storage = {
    head: () => Promise.resolve(objectSize === null ? undefined : { size: objectSize }),
    presignGet: (key: string) => Promise.resolve(`http://s3.test/${key}?X-Amz-Signature=get`),
    presignPut: (key: string, _seconds: number, contentType?: string) => Promise.resolve(`http://s3.test/${key}?X-Amz-Signature=put&type=${contentType}`),
  } as unknown as Storage;
  return { farm, storage, released, lost, requests, raises, acquired };
}

function environment() {
  return new MockActivityEnvironment(
    { startToCloseTimeoutMs: 3_600_000, activityId: '7', workflowExecution: { workflowId: 'video:vid_1', runId: '0123456789ab' } },
    // The SDK logs each failed activity; here failing is the point.
    { logger: new DefaultLogger('ERROR', () => {}) },
  );
}

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ApplicationFailure, `an ApplicationFailure, got ${String(error)}`);
  return error;
}

test('ENCODE_GROUPING auto: one decode for the ladder on a one-node farm, fan-out per rendition across several', async () => {
  const groupingWith = (liveNodes: number, encodeGrouping?: 'auto' | 'ladder' | 'rendition') =>
    createNodeActivities({ ...harness({ liveNodes }), logger, encodeGrouping }).encodeGrouping();
  assert.equal(await groupingWith(1), 'ladder');
  assert.equal(await groupingWith(0), 'ladder');
  assert.equal(await groupingWith(2), 'rendition');
  assert.equal(await groupingWith(3, 'ladder'), 'ladder');
  assert.equal(await groupingWith(1, 'rendition'), 'rendition');
});

test('an encode presigns every output (bound to its type), forwards progress as heartbeats, returns what the node measured, frees the slot', async () => {
  const h = harness({
    encode: (_request, options) => {
      options?.onProgress?.({ percent: 40, encodedSeconds: 1.6, speed: 2 });
      options?.onProgress?.({ percent: 100, encodedSeconds: 4, speed: 2 });
      return Promise.resolve(done);
    },
  });
  const env = environment();
  const beats: unknown[] = [];
  env.on('heartbeat', (details: unknown) => beats.push(details));
  const outcome = (await env.run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput)) as EncodeOutcome;

  const [request] = h.requests;
  assert.equal(request!.jobId, 'vid_1-a7-01234567');
  assert.equal(request!.inputUrl, 'http://s3.test/uploads/o/e/u/clip.mp4?X-Amz-Signature=get');
  assert.deepEqual(Object.keys(request!.whole!.outputUrls!).sort(), ['360p/init.mp4', '360p/playlist.m3u8', '360p/seg-00000.m4s', '360p/seg-00001.m4s', '360p/seg-00002.m4s']);
  assert.match(request!.whole!.outputUrls!['360p/seg-00001.m4s']!, /videos\/vid_1\/hls\/360p\/seg-00001\.m4s\?.*type=video\/iso\.segment/);
  assert.match(request!.whole!.outputUrls!['360p/playlist.m3u8']!, /type=application\/vnd\.apple\.mpegurl/);
  assert.equal(request!.whole!.renditions?.length, 1, 'a list of one');
  assert.equal(request!.whole!.renditions?.[0]?.key, '360p');
  assert.equal(request!.whole!.renditions?.[0]?.x264Preset, 'veryfast');
  assert.ok(beats.some((b) => (b as { percent: number }).percent === 40));
  assert.equal(outcome.bandwidth, 760_000);
  assert.equal(outcome.averageBandwidth, 640_000);
  assert.equal(outcome.codecs, 'avc1.64001e,mp4a.40.2');
  assert.equal(outcome.nodeId, 'node_a');
  assert.equal(h.released.length, 1);
  assert.deepEqual(h.lost, []);
});

test('a node that drops the connection mid-encode: NodeLost (retryable), the node is taken out, the slot freed', async () => {
  const h = harness({ encode: () => Promise.reject(serviceError(grpc.status.UNAVAILABLE, 'Connection dropped')) });
  const failure = await failureOf(environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput));
  assert.equal(failure.type, 'NodeLost');
  assert.equal(failure.nonRetryable, false);
  assert.deepEqual(h.lost, ['node_a']);
  assert.equal(h.released.length, 1);
});

test('a busy node: NoNodeAvailable, and the node is not blamed', async () => {
  const h = harness({ encode: () => Promise.reject(nodeFailure('NODE_BUSY', 'all 1 encode slots of this node are busy')) });
  const failure = await failureOf(environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput));
  assert.equal(failure.type, 'NoNodeAvailable');
  assert.deepEqual(h.lost, []);
});

test('storage down on the node side (STORAGE_UNAVAILABLE) is retried without blaming the node', async () => {
  const h = harness({ encode: () => Promise.reject(nodeFailure('STORAGE_UNAVAILABLE', 'storage unreachable: Connection refused')) });
  const failure = await failureOf(environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput));
  assert.equal(failure.nonRetryable, false);
  assert.notEqual(failure.type, 'NodeLost');
  assert.deepEqual(h.lost, []);
});

test('the node refuses the source: InvalidSource, final, without the presigned URL in the reason', async () => {
  const h = harness({
    encode: () =>
      Promise.reject(nodeFailure('INVALID_SOURCE', 'the source is not a readable video: http://s3.test/u?X-Amz-Signature=x: Invalid data found when processing input')),
  });
  const failure = await failureOf(environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput));
  assert.equal(failure.type, 'InvalidSource');
  assert.equal(failure.nonRetryable, true);
  assert.equal(failure.message, 'the source is not a readable video: Invalid data found when processing input');
});

test('no slot came in the queue\'s wait: NoNodeAvailable before any call, final for this activity', async () => {
  const h = harness({ lease: null });
  const failure = await failureOf(environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput));
  assert.equal(failure.type, 'NoNodeAvailable');
  assert.equal(failure.nonRetryable, true, 'the workflow waits for a node and queues a new activity');
  assert.deepEqual(h.requests, []);
  const env = environment();
  const capacity = await failureOf(env.run(createNodeActivities({ ...h, logger }).waitForNodeCapacity, { freeSlot: true }));
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
  const error = await env.run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput).catch((e: unknown) => e);
  assert.ok(error instanceof CancelledFailure, `cancelled, got ${String(error)}`);
  assert.ok(aborted, 'the gRPC call was cancelled');
  assert.equal(h.released.length, 1);
  assert.deepEqual(h.lost, []);
});

test('a lease the registry drops mid-encode (the node stopped heartbeating) ends the call at once: NodeLost', async () => {
  const dropped = new AbortController();
  let aborted = false;
  const h = harness({
    lease: { leaseId: 'lease_1', nodeId: 'node_a', address: '127.0.0.1:1', dropped: dropped.signal, urgent: false, raised: new AbortController().signal },
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
  const failure = await failureOf(environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput));
  assert.ok(aborted, 'the gRPC call was cancelled');
  assert.equal(failure.type, 'NodeLost');
  assert.match(failure.message, /registry dropped the node/);
  assert.equal(h.released.length, 1);
});

/** A lease of a background encode, raised by the test: the dispatcher's `raised`. */
function backgroundLease(): { lease: NodeLease; raise: () => void } {
  const raised = new AbortController();
  const lease: NodeLease = { leaseId: 'lease_1', nodeId: 'node_a', address: '127.0.0.1:1', dropped: new AbortController().signal, urgent: false, raised: raised.signal };
  return { lease, raise: () => raised.abort(new Error('a viewer waits for this encode')) };
}

/** A node's encode that streams progress until `finish` is called, then answers done. */
function runningEncode(): { encode: EncodeClient['encode']; progress: () => void; finish: () => void; started: Promise<void> } {
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
  assert.deepEqual(h.raises, ['vid_1-a7-01234567'], 'once, with the job id');
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
  const h2 = harness({ lease: failing.lease, encode: second.encode, raisePriority: () => Promise.reject(serviceError(grpc.status.UNAVAILABLE, 'Connection dropped')) });
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
  for (const lease of [{ ...backgroundLease().lease, urgent: true }, (() => {
    const raised = backgroundLease();
    raised.raise();
    return raised.lease;
  })()]) {
    const h = harness({ lease });
    await environment().run(createNodeActivities({ ...h, logger }).encodeRendition, encodeInput);
    assert.equal(h.requests[0]!.onDemand, true);
    assert.deepEqual(h.raises, []);
  }
});

test('an audio track: just in time, the first of its video\'s background work, naming the segments that wait for it; urgent in older workflows; plain queue work otherwise', async () => {
  const awaiting = { renditions: ['360p', '720p'], firstSegment: 5, segmentCount: 45 };
  const track = { videoId: 'vid_1', storagePath: 'uploads/o/e/u/clip.mp4', rendition: rendition!, durationSeconds: 300, probe: probedSource };
  const placements = [];
  for (const input of [{ ...track, justInTime: { awaiting } }, { ...track, justInTime: {} }, { ...track, urgent: true }, track]) {
    // Not in storage yet (an earlier attempt's track would be used as it is).
    const h = harness({ objectSize: null });
    await environment().run(createNodeActivities({ ...h, logger }).encodeAudioTrack, input);
    assert.ok(h.requests[0] && 'audioTrack' in h.requests[0], 'the node was asked for the track');
    placements.push(h.acquired[0]!.placement);
  }
  assert.deepEqual(placements, [{ priority: 0, rank: 0, segments: awaiting }, { priority: 0, rank: 0 }, { priority: 1 }, undefined]);
});

test('probe: an empty or missing upload, or a file with neither picture nor sound, is InvalidSource at once; sound alone is an audio-only source', async () => {
  const input = { videoId: 'vid_1', storagePath: 'uploads/o/e/u/clip.mp4' };
  const empty = await failureOf(environment().run(createNodeActivities({ ...harness({ objectSize: 0 }), logger }).probeSource, input));
  assert.equal(empty.type, 'InvalidSource');
  assert.equal(empty.message, 'the uploaded file is empty (0 bytes)');
  const missing = await failureOf(environment().run(createNodeActivities({ ...harness({ objectSize: null }), logger }).probeSource, input));
  assert.equal(missing.type, 'InvalidSource');

  const audioOnly: ProbeResult__Output = {
    durationSeconds: 4, width: 0, height: 0, frameRate: 0, frameCount: 0, videoCodec: '', pixelFormat: '',
    hasAudio: true, audioCodec: 'aac', audioChannels: 2, audioSampleRate: 48000, formatName: 'mov', sizeBytes: 1000, videoDurationSeconds: 0,
  };
  const sound = (await environment().run(createNodeActivities({ ...harness({ probe: () => Promise.resolve(audioOnly) }), logger }).probeSource, input)) as SourceProbe;
  assert.deepEqual([sound.width, sound.height, sound.hasAudio], [0, 0, true], 'an audio-only source');
  const nothing = await failureOf(
    environment().run(createNodeActivities({ ...harness({ probe: () => Promise.resolve({ ...audioOnly, hasAudio: false, audioCodec: '' }) }), logger }).probeSource, input),
  );
  assert.equal(nothing.type, 'InvalidSource');
  assert.equal(nothing.message, 'the file has neither a video nor an audio stream');

  const video = { ...audioOnly, width: 640, height: 360, frameRate: 30, frameCount: 120, videoCodec: 'h264', pixelFormat: 'yuv420p' };
  const probe = (await environment().run(createNodeActivities({ ...harness({ probe: () => Promise.resolve(video) }), logger }).probeSource, input)) as SourceProbe;
  assert.equal(probe.width, 640);
  assert.equal(probe.durationSeconds, 4);
});

test('a probe, a thumbnail and a storyboard heartbeat, naming their node, for as long as the node works', async () => {
  const video: ProbeResult__Output = {
    durationSeconds: 4, width: 640, height: 360, frameRate: 30, frameCount: 120, videoCodec: 'h264', pixelFormat: 'yuv420p',
    hasAudio: true, audioCodec: 'aac', audioChannels: 2, audioSampleRate: 48000, formatName: 'mov', sizeBytes: 1000, videoDurationSeconds: 0,
  };
  const source = { videoId: 'vid_1', storagePath: 'uploads/o/e/u/clip.mp4' };
  const jobs = [
    { what: 'probe', answer: video as unknown, run: (a: ReturnType<typeof createNodeActivities>) => a.probeSource, input: source },
    { what: 'thumbnail', answer: { width: 640, height: 360, bytes: 1 }, run: (a: ReturnType<typeof createNodeActivities>) => a.makeThumbnail, input: { ...source, timestampSeconds: 0.4 } },
    { what: 'storyboard', answer: {}, run: (a: ReturnType<typeof createNodeActivities>) => a.makeStoryboard, input: { ...source, durationSeconds: 4 } },
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
      const running = env.run(run(createNodeActivities({ ...h, logger })) as (i: typeof input) => Promise<unknown>, input);
      await calledNode;
      // The node takes a minute: the beats go on every few seconds meanwhile.
      vi.advanceTimersByTime(60_000);
      answerNode(answer);
      await running;
      // (A probe beats once more before, while it looks at the upload in storage.)
      const whileOnNode = beats.filter((beat) => (beat as { nodeId?: string } | undefined)?.nodeId);
      assert.equal(whileOnNode.length, 1 + 60_000 / heartbeatIntervalMs, `${what}: one beat at the call, then every ${heartbeatIntervalMs} ms`);
      for (const beat of whileOnNode) assert.deepEqual(beat, { nodeId: 'node_a', what });
    }
  } finally {
    vi.useRealTimers();
  }
});

test('each failure reason a node answers with has its own retry rule; only a lost connection blames the node', async () => {
  const input = { videoId: 'vid_1', storagePath: 'uploads/o/e/u/clip.mp4', renditions: [rendition!], durationSeconds: 4 };
  const rules: Array<[string, Error, { type: string; final: boolean; lost: boolean }]> = [
    ['invalid source', nodeFailure('INVALID_SOURCE', 'not a video'), { type: 'InvalidSource', final: true, lost: false }],
    ['source gone', nodeFailure('SOURCE_NOT_FOUND', 'no object'), { type: 'InvalidSource', final: true, lost: false }],
    ['malformed request', nodeFailure('INVALID_REQUEST', 'no URL for 360p/seg-00003.m4s'), { type: 'InvalidRequest', final: true, lost: false }],
    ['thumbnail past the end', nodeFailure('TIMESTAMP_OUT_OF_RANGE', 'no frame'), { type: 'InvalidRequest', final: true, lost: false }],
    ['node busy', nodeFailure('NODE_BUSY', 'draining'), { type: 'NoNodeAvailable', final: false, lost: false }],
    ['storage unavailable', nodeFailure('STORAGE_UNAVAILABLE', 'could not upload'), { type: 'StorageUnavailable', final: false, lost: false }],
    ['URL refused', nodeFailure('URL_REFUSED', 'HTTP 403'), { type: 'UrlRefused', final: false, lost: false }],
    ['ffmpeg failed', nodeFailure('FFMPEG_FAILED', 'Cannot allocate memory'), { type: 'NodeWorkFailed', final: false, lost: false }],
    ['node internal error', nodeFailure('INTERNAL', 'EMFILE'), { type: 'NodeWorkFailed', final: false, lost: false }],
    // No JobFailure: the node did not answer.
    ['connection refused', serviceError(grpc.status.UNAVAILABLE, 'No connection established'), { type: 'NodeLost', final: false, lost: true }],
    ['connection reset', serviceError(grpc.status.INTERNAL, 'Received RST_STREAM with code 2'), { type: 'NodeLost', final: false, lost: true }],
    ['cancelled, not by us', serviceError(grpc.status.CANCELLED, 'Call cancelled'), { type: 'NodeLost', final: false, lost: true }],
    ['deadline', serviceError(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded'), { type: 'NodeLost', final: false, lost: true }],
    ['stream ended without done', new EncodeStreamEndedError('127.0.0.1:1'), { type: 'NodeLost', final: false, lost: true }],
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
    environment().run(createNodeActivities({ ...harness({ encode: () => Promise.reject(serviceError(grpc.status.UNAVAILABLE, 'Connection dropped')) }), logger }).encodeRenditions, input),
  );
  assert.ok((lostNode.nextRetryDelay as number) <= 100, `retried at once, not after ${String(lostNode.nextRetryDelay)}`);
  // Storage outages outlast blips: the next attempt waits longer than the policy's first interval.
  const h = harness({ encode: () => Promise.reject(nodeFailure('STORAGE_UNAVAILABLE', 'could not upload')) });
  const storage = await failureOf(environment().run(createNodeActivities({ ...h, logger }).encodeRenditions, input));
  assert.equal(storage.nextRetryDelay, 15_000);
});

test('the one encode activity: a list of renditions, `<key>/<file>` URLs, one outcome per rendition in request order', async () => {
  const ladder = planLadder('standard', { width: 1280, height: 720, frameRate: 30, hasAudio: true }, {
    maxEdgeLength: -1, maxFrameRate: -1, pixelFormat: 'yuv420p', rateControlMode: 'variableBitrate',
    twoPassVBREncoding: false, compressionRatio: 'veryfast', audioCodec: 'aac',
  });
  const h = harness({
    encode: (request) =>
      Promise.resolve({
        ...done,
        // The node may answer in any order: the activity matches results by key.
        renditions: [...request.whole!.renditions!].reverse().map((spec) => ({ ...done.renditions[0]!, key: spec.key!, height: spec.height! })),
      }),
  });
  const outcomes = (await environment().run(createNodeActivities({ ...h, logger }).encodeRenditions, {
    videoId: 'vid_1', storagePath: 'uploads/o/e/u/clip.mp4', renditions: ladder, durationSeconds: 4,
  })) as EncodeOutcome[];
  assert.deepEqual(outcomes.map((o) => [o.key, o.height]), ladder.map((plan) => [plan.key, plan.height]));
  const [request] = h.requests;
  assert.deepEqual(request!.whole!.renditions!.map((r) => r.key), ['360p', '480p', '720p']);
  for (const plan of ladder) assert.ok(request!.whole!.outputUrls![`${plan.key}/playlist.m3u8`], `${plan.key}/playlist.m3u8`);
  assert.ok(Object.keys(request!.whole!.outputUrls!).every((name) => /^(360p|480p|720p)\//.test(name)));
});
