// A fake farm of one node and a fake storage for the node jobs' tests (jobs/*.test.ts and
// activities/node-work.test.ts): each test plays the node's side of a call and reads back what the
// activity asked of the farm, the node and storage.
import assert from 'node:assert/strict';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import {
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
import { defaultEncodingParameters } from '@kino/proto/contract';
import { planLadder } from '../ladder.ts';
import type { AcquireRequest, FarmNode, NodeFarm, NodeLease } from '../node-farm.ts';

export const logger = createLogger('test', 'silent');
export const [rendition] = planLadder(
  'standard',
  { width: 640, height: 360, frameRate: 30, hasAudio: true },
  defaultEncodingParameters,
);
export const encodeInput = {
  videoId: 'vid_1',
  storagePath: 'uploads/o/e/u/clip.mp4',
  rendition: rendition!,
  durationSeconds: 4,
};

/** A call that failed without an answer from the node (the transport's error: no JobFailure). */
export function serviceError(code: grpc.status, details: string): grpc.ServiceError {
  return Object.assign(new Error(`${code} ${grpc.status[code]}: ${details}`), {
    code,
    details,
    metadata: new grpc.Metadata(),
  });
}

/** A call the node failed with `reason`, as the client hands it over (the JobFailure trailer decoded). */
export function nodeFailure(reason: FailureReason, details: string): Error {
  const status = jobFailureStatus(reason, details);
  return jobFailureOf(Object.assign(new Error(`${status.code} ${grpc.status[status.code]}: ${details}`), status))!;
}

export const done: EncodeDone__Output = {
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
export const probedSource: ProbeResult__Output = {
  audioTracks: [],
  durationSeconds: 4,
  videoDurationSeconds: 4,
  width: 640,
  height: 360,
  frameRate: 30,
  frameCount: 120,
  videoCodec: 'h264',
  pixelFormat: 'yuv420p',
  dynamicRange: 'sdr',
  hasAudio: true,
  audioCodec: 'aac',
  audioChannels: 2,
  audioSampleRate: 48000,
  formatName: 'mov',
  sizeBytes: 1000,
};

export interface Harness {
  farm: NodeFarm;
  storage: Storage;
  released: NodeLease[];
  lost: string[];
  requests: EncodeRequest[];
  /** The job ids RaisePriority was called with. */
  raises: string[];
  /** The segments raised through the farm (raiseSegment). */
  raisedSegments: { videoId: string; rendition: string; segment: number }[];
  /** What each encode asked the queue for. */
  acquired: AcquireRequest[];
  /** The nodes watched for short jobs (watchNode), while they are. */
  watching: string[];
}

/** A farm with one node; `encode` plays the node's side of the call. */
export function harness({
  /** null: no node has a free slot. */
  lease = {
    leaseId: 'lease_1',
    nodeId: 'node_a',
    address: '127.0.0.1:1',
    dropped: new AbortController().signal,
    urgent: false,
    raised: new AbortController().signal,
  } as NodeLease | null,
  encode = (() => Promise.resolve(done)) as EncodeClient['encode'],
  probe = (() => Promise.resolve(probedSource)) as EncodeClient['probe'],
  thumbnail = (() => Promise.resolve({ width: 640, height: 360, bytes: 1 })) as EncodeClient['thumbnail'],
  storyboard = (() => Promise.reject(new Error('no storyboard'))) as EncodeClient['storyboard'],
  raisePriority = (() => Promise.resolve({ running: true })) as EncodeClient['raisePriority'],
  /** null: the uploaded object does not exist. */
  objectSize = 1000 as number | null,
  liveNodes = 1,
  /** The `gone` of every node watched for a short job: abort it to play a node the registry stopped counting on. */
  nodeGone = new AbortController().signal,
} = {}): Harness {
  const watching: string[] = [];
  const released: NodeLease[] = [];
  const lost: string[] = [];
  const requests: EncodeRequest[] = [];
  const raises: string[] = [];
  const raisedSegments: Harness['raisedSegments'] = [];
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
    raiseSegment: (request) => {
      raisedSegments.push(request);
      return Promise.resolve();
    },
    pickNode: () => Promise.resolve({ nodeId: 'node_a', address: '127.0.0.1:1' } as FarmNode),
    watchNode: (nodeId) => {
      watching.push(nodeId);
      return {
        gone: nodeGone,
        stop: () => {
          watching.splice(watching.indexOf(nodeId), 1);
        },
      };
    },
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
    presignPut: (key: string, _seconds: number, contentType?: string) =>
      Promise.resolve(`http://s3.test/${key}?X-Amz-Signature=put&type=${contentType}`),
    put: () => Promise.resolve(),
  } as unknown as Storage;
  return { farm, storage, released, lost, requests, raises, raisedSegments, acquired, watching };
}

export function environment() {
  return new MockActivityEnvironment(
    {
      startToCloseTimeoutMs: 3_600_000,
      activityId: '7',
      workflowExecution: { workflowId: 'video:vid_1', runId: '0123456789ab' },
    },
    // The SDK logs each failed activity; here failing is the point.
    { logger: new DefaultLogger('ERROR', () => {}) },
  );
}

export async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ApplicationFailure, `an ApplicationFailure, got ${String(error)}`);
  return error;
}
