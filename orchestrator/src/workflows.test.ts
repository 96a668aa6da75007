// The workflows against a real Temporal server (the dev server binary) with fake activities: the
// orchestration logic alone, in seconds. The farm tests (test/farm) run it on real everything.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, DefaultLogger, Worker, type WorkflowBundle } from '@temporalio/worker';
import { createLogger } from '@kino/infra';
import { workflowsPath } from './worker.ts';
import { loadWorkflowBundle, workflowBundleCacheDir } from './workflow-bundle.ts';
import { ApplicationFailure } from '@temporalio/common';
import { findBinary } from '@kino/dev';
import type { Activities } from './activities/index.ts';
import { workflowIds, defaultEncodingParameters } from '@kino/proto/contract';
import {
  failureTypes,
  type EncodeOutcome,
  type ProcessVideoResult,
  type SourceProbe,
  type VideoJob,
} from './activity-types.ts';
import { planPictureCopy, type RenditionPlan } from './ladder.ts';
import type { LiveBroadcastResult } from './workflows/live-broadcast.ts';
import type { LiveEncodeInput } from './jobs/live.ts';
import type { ChunkPlan } from './chunks.ts';
import temporalProto from '@temporalio/proto';

const { History } = temporalProto.temporal.api.history.v1;

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundle;
let counter = 0;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  [env, bundle] = await Promise.all([
    TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path: findBinary('temporal') } },
    }),
    loadWorkflowBundle(workflowsPath, {
      cacheDir: workflowBundleCacheDir,
      logger: createLogger('workflows-test', 'warn'),
    }),
  ]);
});

afterAll(async () => {
  await env?.teardown();
});

const probe720: SourceProbe = {
  audioTracks: [],
  durationSeconds: 4,
  videoDurationSeconds: 4,
  audioChannels: 2,
  audioSampleRate: 48000,
  width: 1280,
  height: 720,
  frameRate: 30,
  frameCount: 120,
  videoCodec: 'h264',
  pixelFormat: 'yuv420p',
  dynamicRange: 'sdr',
  hasAudio: true,
  audioCodec: 'aac',
  formatName: 'mov,mp4,m4a,3gp,3g2,mj2',
  sizeBytes: 1_000_000,
};

function outcomeFor(plan: RenditionPlan): EncodeOutcome {
  return {
    key: plan.key,
    width: plan.width,
    height: plan.height,
    codecs: 'avc1.64001f,mp4a.40.2',
    bandwidth: plan.videoBitrateKbps * 1200,
    averageBandwidth: plan.videoBitrateKbps * 1000,
    segmentCount: 1,
    frameCount: 120,
    bytesWritten: 1000,
    nodeId: 'node_fake',
    timings: { prepareMs: 1, startupMs: 1, encodeMs: 1, finishMs: 1 },
  };
}

/** A rung's 6 s recording. */
const liveOutcomeFor = (plan: RenditionPlan): EncodeOutcome => ({
  ...outcomeFor(plan),
  segments: [{ name: 'seg-00000.m4s', durationSeconds: 6, sizeBytes: 1000 }],
});

/** A broadcast's activities: a live probe (no duration), a 6 s recording per rung, its publisher still there. */
const liveFakes: Pick<
  Activities,
  'probeLiveSource' | 'encodeLive' | 'broadcastRuns' | 'endStoredBroadcast' | 'endKeptParts'
> = {
  probeLiveSource: () => Promise.resolve({ ...probe720, durationSeconds: 0, videoDurationSeconds: 0 }),
  encodeLive: ({ renditions }) => Promise.resolve(renditions.map(liveOutcomeFor)),
  broadcastRuns: () => Promise.resolve(true),
  endStoredBroadcast: ({ renditions }) => Promise.resolve(renditions.map(liveOutcomeFor)),
  endKeptParts: () => Promise.resolve(),
};

interface Calls {
  [name: string]: unknown[][];
}

/** generateCaptions' activities for a long video: three pieces, each heard in English. */
function captionActivities(
  videoId: string,
): Pick<Activities, 'loadCaptionJob' | 'transcribeSpeech' | 'joinTranscript'> {
  return {
    // A long video: three pieces.
    loadCaptionJob: () =>
      Promise.resolve({
        storagePath: `uploads/org_1/env_1/upl_1/${videoId}.mp4`,
        pieces: [
          { index: 0, startSeconds: 0, endSeconds: 603 },
          { index: 1, startSeconds: 597, endSeconds: 1203 },
          { index: 2, startSeconds: 1197, endSeconds: 1800 },
        ],
      }),
    transcribeSpeech: ({ videoId: id, run, piece }) =>
      Promise.resolve({ language: 'en', wordsKey: `videos/${id}/work/captions/${run}/${piece.index}.json`, words: 9 }),
    joinTranscript: ({ videoId: id }) =>
      Promise.resolve({ key: `videos/${id}/captions/en/generated-1.vtt`, sizeBytes: 120, cues: 3 }),
  };
}

/** Activities that succeed like a healthy farm, recording every call; a test overrides what it breaks. */
function fakeActivities(
  videoId: string,
  overrides: Partial<Activities> = {},
): { activities: Activities; calls: Calls } {
  const calls: Calls = {};
  const job: VideoJob = {
    videoId,
    storagePath: `uploads/org_1/env_1/upl_1/${videoId}.mp4`,
    quality: 'standard',
    parameters: { ...defaultEncodingParameters },
    status: 'transcoding',
    deleted: false,
  };
  const base: Activities = {
    loadVideoJob: () => Promise.resolve(job),
    markVideoReady: () => Promise.resolve(true),
    markClipReady: () => Promise.resolve(true),
    markVideoFailed: () => Promise.resolve(),
    loadAudioTrackJob: () =>
      Promise.resolve({
        storagePath: `uploads/org_1/env_1/upl_2/${videoId}-es.m4a`,
        name: 'Spanish',
        isDefault: false,
        durationSeconds: 4,
        parameters: { ...defaultEncodingParameters },
      }),
    markAudioTrackReady: () => Promise.resolve(true),
    markAudioTrackFailed: () => Promise.resolve(),
    // A video whose sound is in its pictures, 360p and 720p (the addAudioTrack test below).
    loadSoundSeparationJob: () =>
      Promise.resolve({
        storagePath: `uploads/org_1/env_1/upl_1/${videoId}.mp4`,
        durationSeconds: 4,
        parameters: { ...defaultEncodingParameters },
        copies: [360, 720].map((edge) =>
          planPictureCopy(defaultEncodingParameters, {
            key: `${edge}p`,
            width: (edge * 16) / 9,
            height: edge,
            shortEdgePixels: edge,
            shortEdgeIsWidth: false,
            videoBitrateKbps: edge * 4,
            frameRate: 30,
            pixelFormat: defaultEncodingParameters.pixelFormat,
            rateControlMode: defaultEncodingParameters.rateControlMode,
            compressionRatio: defaultEncodingParameters.compressionRatio,
          }),
        ),
        videoRanges: {},
      }),
    writePictureCopyInput: ({ videoId: id, original }) =>
      Promise.resolve(`videos/${id}/work/picture-copy/${original}.m3u8`),
    writeRecordingWindowInputs: ({ videoId: id, startsSeconds }) =>
      Promise.resolve(
        startsSeconds.map((start, k) => ({ key: `videos/${id}/work/clip-input/${k}.mp4`, offsetSeconds: start })),
      ),
    finishSoundSeparation: () => Promise.resolve(true),
    listWebhookSubscriptions: () => Promise.resolve([{ webhookId: 'whk_1' }]),
    waitForNodeCapacity: () => Promise.resolve(),
    probeSource: () => Promise.resolve(probe720),
    // One encode per rendition (ENCODE_GROUPING=rendition): the retry and cancellation tests below
    // exercise that grouping; the ladder grouping has its own test.
    encodeGrouping: () => Promise.resolve('rendition'),
    encodeRenditions: ({ renditions }) => Promise.resolve(renditions.map(outcomeFor)),
    // Called only by workflows started before the one encode protocol (workflow-replay.test.ts).
    encodeRendition: ({ rendition }) => Promise.resolve(outcomeFor(rendition)),
    makeThumbnail: ({ videoId: id }) => Promise.resolve(`videos/${id}/thumbs/default.jpg`),
    makeStoryboard: ({ videoId: id }) => Promise.resolve(`videos/${id}/storyboard/storyboard.vtt`),
    writeMasterPlaylist: ({ videoId: id }) => Promise.resolve(`videos/${id}/hls/master.m3u8`),
    removeVideoOutputs: () => Promise.resolve({ removed: 0 }),
    // Chunking off unless a test turns it on (its own test below).
    encodeChunkSeconds: () => Promise.resolve(0),
    findFinishedChunks: () => Promise.resolve({ planId: 'plan_1', finished: {} }),
    encodeAudioTrack: ({ videoId: id }) => Promise.resolve(`videos/${id}/work/audio-aac-128.mp4`),
    makeAudioDownload: ({ videoId: id }) => Promise.resolve(`videos/${id}/audio.m4a`),
    encodeChunk: ({ renditions, chunk }) =>
      Promise.resolve(
        renditions.map((plan) => ({
          ...outcomeFor(plan),
          segments: Array.from({ length: chunk.segmentCount }, (_, k) => ({
            name: `seg-${String(chunk.firstSegment + k).padStart(5, '0')}.m4s`,
            durationSeconds: 6,
            sizeBytes: 6 * plan.videoBitrateKbps * 125,
          })),
        })),
      ),
    writeRenditionPlaylists: () => Promise.resolve(),
    writePlannedPlaylists: ({ renditions }) => Promise.resolve({ segmentCounts: renditions.map(() => 10) }),
    joinBootstrapSegments: () => Promise.resolve(),
    // Published whole unless a test turns just in time on (its own test below).
    justInTimeRuns: () => Promise.resolve(null),
    removeVideoOutputsButChunks: () => Promise.resolve({ removed: 0 }),
    removeWorkFiles: () => Promise.resolve({ removed: 0 }),
    removeVideoContent: () => Promise.resolve({ removed: 0 }),
    sendWebhook: () => Promise.resolve({ status: 200 }),
    // Stands for the details object: the events carry whatever the activity read, after the change.
    liveStreamEvent: () => Promise.resolve(null),
    videoDetails: ({ videoId: id }) =>
      Promise.resolve({
        publicID: id,
        readAfter: calls.markVideoReady ? 'ready' : calls.markVideoFailed ? 'failed' : 'nothing',
      }),
    fetchIngestSource: () => Promise.resolve({ sizeBytes: 1_000_000, resumes: 0 }),
    ...captionActivities(videoId),
    storeGeneratedCaptionTrack: () => Promise.resolve(true),
    ...liveFakes,
  };
  const merged = { ...base, ...overrides } as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const activities = Object.fromEntries(
    Object.entries(merged).map(([name, fn]) => [
      name,
      (...args: unknown[]) => {
        (calls[name] ??= []).push(args);
        return fn(...args);
      },
    ]),
  ) as unknown as Activities;
  return { activities, calls };
}

/** Runs processVideo for a fresh video id on a worker with `activities` until `until` (default: its result) settles. */
async function runProcessVideo(
  videoId: string,
  activities: Activities,
  until?: (result: Promise<ProcessVideoResult>) => Promise<unknown>,
): Promise<ProcessVideoResult> {
  const taskQueue = `test-${videoId}`;
  const worker = await Worker.create({ ...workerOptions(), taskQueue, activities });
  const handle = await env.client.workflow.start('processVideo', {
    taskQueue,
    workflowId: workflowIds.processVideo(videoId),
    args: [{ videoId }],
  });
  const result = handle.result() as Promise<ProcessVideoResult>;
  await worker.runUntil(until ? until(result) : result);
  return result;
}

const workerOptions = () => ({
  connection: env.nativeConnection,
  workflowBundle: bundle,
  // As the orchestrator's worker: cancellation reaches a heartbeating activity within seconds.
  maxHeartbeatThrottleInterval: '1 second' as const,
});

function nextVideoId(): string {
  counter += 1;
  return `vid_test${Date.now().toString(36)}${counter}`;
}

/**
 * Records the history of a test's processVideo as a replay fixture (fixtures/<fixture>.history.json,
 * replayed by workflow-replay.test.ts) when KINO_RECORD_HISTORY names that fixture, else does
 * nothing. A fixture keeps the commands of the code that recorded it: record a new one when a patch
 * is added (its history must take the patched path), and never re-record an old one, which stands
 * for workflows started before later patches. For example:
 *   KINO_RECORD_HISTORY=process-video-just-in-time npx vitest run --project orchestrator workflows.test.ts -t 'just in time: ready'
 */
async function recordHistoryIfAsked(
  videoId: string,
  fixture: string,
  workflowId = workflowIds.processVideo(videoId),
): Promise<void> {
  if (process.env.KINO_RECORD_HISTORY !== fixture) return;
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  // Protobuf's JSON mapping with string longs and enums, as the replay test reads it.
  const json = History.toObject(History.fromObject(history), { longs: String, enums: String, bytes: String });
  writeFileSync(new URL(`./fixtures/${fixture}.history.json`, import.meta.url), JSON.stringify(json, null, 2));
}

/**
 * The segments a run makes as a node reports them: a bootstrap run's 2 s bootstrap segments (up to
 * 6 s), then `seconds`-long segments (a run from 2 s through the next run's segments), or
 * `seconds`-long segments.
 */
function segmentsOf(
  chunk: ChunkPlan,
  plan: RenditionPlan,
  seconds: number,
): { name: string; durationSeconds: number; sizeBytes: number }[] {
  if (chunk.bootstrap) {
    const parts = Array.from(
      { length: (Math.min(6, chunk.startSeconds + chunk.durationSeconds) - chunk.startSeconds) / 2 },
      (_, k) => ({
        name: `boot-${chunk.startSeconds / 2 + k}.m4s`,
        durationSeconds: 2,
        sizeBytes: 2 * plan.videoBitrateKbps * 125,
      }),
    );
    return [
      ...parts,
      ...segmentsOf(
        { ...chunk, bootstrap: false, firstSegment: 1, segmentCount: chunk.segmentCount - 1 },
        plan,
        seconds,
      ),
    ];
  }
  return Array.from({ length: chunk.segmentCount }, (_, k) => ({
    name: `seg-${String(chunk.firstSegment + k).padStart(5, '0')}.m4s`,
    durationSeconds: seconds,
    sizeBytes: seconds * plan.videoBitrateKbps * 125,
  }));
}

/** A promise and the function that resolves it: lets a fake activity tell the test it ran. */
function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

test('happy path: probe, one encode per rung, master playlist, thumbnail, ready, completed webhook', async () => {
  const videoId = nextVideoId();
  const webhookSent = signal();
  const { activities, calls } = fakeActivities(videoId, {
    sendWebhook: () => {
      webhookSent.resolve();
      return Promise.resolve({ status: 200 });
    },
  });
  const result = await runProcessVideo(videoId, activities, (r) => Promise.all([r, webhookSent.promise]));

  assert.equal(result.status, 'ready');
  assert.equal(calls.probeSource?.length, 1);
  assert.deepEqual(
    calls.encodeRenditions
      ?.map(([input]) => (input as { renditions: RenditionPlan[] }).renditions.map((r) => r.key))
      .sort(),
    [['360p'], ['480p'], ['720p']],
    'one encode activity per rung, each with a list of one',
  );
  assert.equal(calls.encodeRendition, undefined);
  const [master] = calls.writeMasterPlaylist![0] as [{ variants: Array<{ key: string; bandwidth: number }> }];
  assert.deepEqual(
    master.variants.map((v) => v.key),
    ['360p', '480p', '720p'],
  );
  assert.equal(master.variants[2]!.bandwidth, 2500 * 1200);
  assert.deepEqual(calls.makeThumbnail?.[0]?.[0], {
    videoId,
    storagePath: `uploads/org_1/env_1/upl_1/${videoId}.mp4`,
    timestampSeconds: 0.4,
  });

  assert.deepEqual(calls.makeStoryboard?.[0]?.[0], {
    videoId,
    storagePath: `uploads/org_1/env_1/upl_1/${videoId}.mp4`,
    durationSeconds: 4,
  });

  const [ready] = calls.markVideoReady![0] as [
    { renditions: unknown[]; thumbnailKey: string; storyboardKey: string; probe: SourceProbe },
  ];
  assert.equal(ready.renditions.length, 3);
  assert.equal(ready.thumbnailKey, `videos/${videoId}/thumbs/default.jpg`);
  assert.equal(ready.storyboardKey, `videos/${videoId}/storyboard/storyboard.vtt`);
  assert.equal(ready.probe.durationSeconds, 4);
  assert.equal(calls.markVideoFailed, undefined);
  assert.equal(calls.removeVideoOutputs, undefined);

  const [send] = calls.sendWebhook![0] as [
    {
      messageId: string;
      payload: { event: string; videoId: string; status: string; timestamp: string; data: unknown };
    },
  ];
  assert.equal(send.payload.event, 'video.processing.completed');
  assert.equal(send.payload.videoId, videoId);
  assert.equal(send.payload.status, 'ready');
  assert.deepEqual(send.payload.data, { publicID: videoId, readAfter: 'ready' });
  assert.ok(!Number.isNaN(Date.parse(send.payload.timestamp)));
  assert.match(send.messageId, /^msg_[0-9a-f]{32}$/);
});

test('a storyboard that cannot be made leaves the video ready, without a storyboard', async () => {
  const videoId = nextVideoId();
  const { activities, calls } = fakeActivities(videoId, {
    makeStoryboard: () =>
      Promise.reject(ApplicationFailure.nonRetryable('ffmpeg wrote 0 of 1 storyboard sheets', 'FfmpegFailed')),
  });
  const result = await runProcessVideo(videoId, activities);
  assert.equal(result.status, 'ready');
  const [ready] = calls.markVideoReady![0] as [{ thumbnailKey: string; storyboardKey: string | null }];
  assert.equal(ready.storyboardKey, null);
  assert.equal(ready.thumbnailKey, `videos/${videoId}/thumbs/default.jpg`);
  assert.equal(calls.markVideoFailed, undefined);
});

test('ladder grouping (the default): one encode makes every rung from one decode; rows and master playlist as per rendition', async () => {
  const videoId = nextVideoId();
  const { activities, calls } = fakeActivities(videoId, { encodeGrouping: () => Promise.resolve('ladder') });
  const result = await runProcessVideo(videoId, activities);

  assert.equal(result.status, 'ready');
  assert.equal(calls.encodeRendition, undefined);
  assert.equal(calls.encodeRenditions?.length, 1, 'one encode activity for the whole ladder');
  const [input] = calls.encodeRenditions![0] as [{ renditions: RenditionPlan[]; durationSeconds: number }];
  assert.deepEqual(
    input.renditions.map((r) => r.key),
    ['360p', '480p', '720p'],
  );
  assert.equal(input.durationSeconds, 4);
  const [master] = calls.writeMasterPlaylist![0] as [{ variants: Array<{ key: string; bandwidth: number }> }];
  assert.deepEqual(
    master.variants.map((v) => v.key),
    ['360p', '480p', '720p'],
  );
  assert.equal(master.variants[2]!.bandwidth, 2500 * 1200);
  const [ready] = calls.markVideoReady![0] as [{ renditions: Array<{ plan: RenditionPlan; outcome: EncodeOutcome }> }];
  assert.deepEqual(
    ready.renditions.map((r) => [r.plan.key, r.outcome.key]),
    [
      ['360p', '360p'],
      ['480p', '480p'],
      ['720p', '720p'],
    ],
  );
});

test('chunked: a 20 s video in 6 s chunks is the audio track, then 3 chunks of the ladder; finished chunks are not encoded again; playlists from their segments', async () => {
  const videoId = nextVideoId();
  const { activities, calls } = fakeActivities(videoId, {
    probeSource: () => Promise.resolve({ ...probe720, durationSeconds: 20, frameCount: 600 }),
    encodeChunkSeconds: () => Promise.resolve(6),
    // A run before this one finished chunk 1 (its record is in storage): it is not encoded again.
    findFinishedChunks: () =>
      Promise.resolve({
        planId: 'plan_1',
        finished: {
          '0-1': ['360p', '480p', '720p'].map((key) => ({
            ...outcomeFor({ key, width: 0, height: 0 } as RenditionPlan),
            frameCount: 180,
            segments: [{ name: 'seg-00001.m4s', durationSeconds: 6, sizeBytes: 1000 }],
          })),
        },
      }),
  });
  const result = await runProcessVideo(videoId, activities);

  assert.equal(result.status, 'ready');
  assert.equal(calls.encodeRenditions, undefined, 'no whole-file encode');
  assert.equal(calls.encodeAudioTrack?.length, 1, 'the audio is encoded once');
  const chunkInputs = calls.encodeChunk!.map(
    ([input]) =>
      input as {
        chunk: { index: number; startSeconds: number; firstSegment: number };
        renditions: RenditionPlan[];
        audioTrackKey: string;
        last: boolean;
      },
  );
  assert.deepEqual(
    chunkInputs
      .map((i) => [
        i.chunk.index,
        i.chunk.startSeconds,
        i.chunk.firstSegment,
        i.last,
        i.renditions.map((r) => r.key).join(),
      ])
      .sort(),
    [
      [0, 0, 0, false, '360p,480p,720p'],
      [2, 12, 2, true, '360p,480p,720p'],
    ],
    'every chunk makes the whole ladder; chunk 1 was already done',
  );
  assert.ok(chunkInputs.every((i) => i.audioTrackKey === `videos/${videoId}/work/audio-aac-128.mp4`));
  const [audioDownload] = calls.makeAudioDownload![0] as [{ audioTrackKey?: string }];
  assert.equal(
    audioDownload.audioTrackKey,
    `videos/${videoId}/work/audio-aac-128.mp4`,
    'audio.m4a may copy the audio track',
  );
  const removeWorkAt = Object.keys(calls).indexOf('removeWorkFiles');
  assert.ok(
    removeWorkAt > Object.keys(calls).indexOf('makeAudioDownload'),
    'audio.m4a is made before the work files go',
  );
  const [playlists] = calls.writeRenditionPlaylists![0] as [
    { renditions: Array<{ shortEdgePixels: number; segments: Array<{ name: string }> }> },
  ];
  assert.deepEqual(
    playlists.renditions.map((r) => r.shortEdgePixels),
    [360, 480, 720],
  );
  assert.deepEqual(
    playlists.renditions[0]!.segments.map((s) => s.name),
    ['seg-00000.m4s', 'seg-00001.m4s', 'seg-00002.m4s', 'seg-00003.m4s'],
  );
  const [ready] = calls.markVideoReady![0] as [{ renditions: Array<{ outcome: EncodeOutcome }> }];
  assert.equal(ready.renditions[0]!.outcome.segmentCount, 4);
  assert.equal(ready.renditions[0]!.outcome.segments, undefined, 'per-chunk segments stay out of the result');
  assert.equal(calls.removeWorkFiles?.length, 1);
});

test("just in time, a video of one run: the run is urgent and makes it ready, as a longer video's first run does, not a background encode of the whole source", async () => {
  const videoId = nextVideoId();
  const { activities, calls } = fakeActivities(videoId, {
    // 10 s: one segment's plan would leave a 4 s tail, so one run of two segments.
    probeSource: () => Promise.resolve({ ...probe720, durationSeconds: 10, videoDurationSeconds: 10, frameCount: 300 }),
    justInTimeRuns: () => Promise.resolve({ runSeconds: 12 }),
    encodeAudioTrack: ({ videoId: id }) => Promise.resolve(`videos/${id}/work/audio-aac-128.mp4`),
    encodeChunk: ({ renditions, chunk }) =>
      Promise.resolve(renditions.map((plan) => ({ ...outcomeFor(plan), segments: segmentsOf(chunk, plan, 5) }))),
  });
  const result = await runProcessVideo(videoId, activities);

  assert.equal(result.status, 'ready');
  assert.equal(calls.encodeRenditions, undefined, 'no background encode of the whole source');
  const runs = calls.encodeChunk!.map(
    ([input]) => input as { chunk: { index: number; segmentCount: number }; justInTime?: { urgent: boolean } },
  );
  assert.deepEqual(
    runs
      .map((r) => [r.chunk.index, r.chunk.segmentCount, r.justInTime?.urgent])
      .sort((a, b) => Number(a[0]) - Number(b[0])),
    [
      [0, 1, true],
      [1, 2, false],
    ],
    'the first 2 s urgent, then the rest of the video (segment 0 and 1) ahead of the background',
  );
  assert.deepEqual(
    calls.markVideoReady!.map(([input]) => (input as { segmentsPending?: boolean }).segmentsPending),
    [true, false],
    'ready as the run ends, then complete',
  );
  assert.equal(calls.removeWorkFiles?.length, 1, 'its work files (the audio track) go once it is complete');
  await recordHistoryIfAsked(videoId, 'process-video-just-in-time-one-run');
});

test('chunked: a chunk that fails for good fails the video but keeps the finished chunks for a retry', async () => {
  const videoId = nextVideoId();
  const { activities, calls } = fakeActivities(videoId, {
    probeSource: () => Promise.resolve({ ...probe720, durationSeconds: 20, frameCount: 600 }),
    encodeChunkSeconds: () => Promise.resolve(6),
    encodeChunk: ({ chunk }) =>
      chunk.index === 2
        ? Promise.reject(ApplicationFailure.nonRetryable('the source ends early', failureTypes.invalidSource))
        : Promise.resolve([]),
  });
  const result = await runProcessVideo(videoId, activities);
  assert.equal(result.status, 'failed');
  assert.equal(calls.removeVideoOutputs, undefined);
  assert.equal(calls.removeVideoOutputsButChunks?.length, 1);
});

/** Waits up to 10 s for a condition in a fake activity, else fails it (for good) with `failure`. */
async function until(failure: string, condition: () => boolean): Promise<void> {
  for (const started = Date.now(); !condition();) {
    if (Date.now() - started > 10_000) throw ApplicationFailure.nonRetryable(failure, failureTypes.invalidSource);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('just in time: ready with the first segment (planned playlists, declared master), the rest in runs in playback order, then the measured ladder; one completed webhook', async () => {
  const videoId = nextVideoId();
  // The audio track and the background runs finish only once the video is ready: a workflow that waited for them fails here.
  const afterReady = (what: string) =>
    until(`the video never became ready before its ${what}`, () => calls.markVideoReady !== undefined);
  const { activities, calls } = fakeActivities(videoId, {
    probeSource: () =>
      Promise.resolve({ ...probe720, durationSeconds: 40, videoDurationSeconds: 40, frameCount: 1000 }),
    justInTimeRuns: () => Promise.resolve({ runSeconds: 12 }),
    encodeAudioTrack: async ({ videoId: id }) => {
      await afterReady('audio track');
      return `videos/${id}/work/audio-aac-128.mp4`;
    },
    encodeChunk: async ({ renditions, chunk }) => {
      // The first run ends only once the second is queued beside it: a workflow that queued the
      // second after the first ended (a background run then took the freed slot) fails here.
      if (chunk.index === 0)
        await until('the first bootstrap run ended before the second was queued', () =>
          calls.encodeChunk!.some(([input]) => (input as { chunk: ChunkPlan }).chunk.index === 1),
        );
      if (chunk.index > 1) await afterReady('background runs');
      return renditions.map((plan) => ({ ...outcomeFor(plan), segments: segmentsOf(chunk, plan, 6) }));
    },
  });
  const result = await runProcessVideo(videoId, activities);

  assert.equal(result.status, 'ready');
  const runs = calls.encodeChunk!.map(
    ([input]) =>
      input as {
        chunk: { index: number; firstSegment: number; segmentCount: number };
        audioTrackKey?: string;
        audioHead?: true;
        justInTime?: { rank: number; urgent: boolean; ahead?: true };
      },
  );
  assert.deepEqual(
    runs
      .map((r) => [
        r.chunk.index,
        r.chunk.firstSegment,
        r.chunk.segmentCount,
        r.justInTime?.rank,
        r.justInTime?.urgent,
        r.justInTime?.ahead ?? false,
      ])
      .sort((a, b) => Number(a[0]) - Number(b[0])),
    [
      [0, 0, 1, 0, true, false],
      [1, 0, 3, 1, false, true],
      [2, 3, 2, 2, false, false],
      [3, 5, 2, 3, false, false],
    ],
    'the first segment in two bootstrap runs queued together (2 s urgent, then 4 s and the next 12 s ahead of the background work), then 12 s runs ranked in playback order',
  );
  assert.deepEqual(calls.joinBootstrapSegments, [[{ videoId, renditions: ['360p', '480p', '720p'] }]]);
  const [made] = calls.writeRenditionPlaylists![0] as [
    { renditions: Array<{ segments: Array<{ name: string }>; bootstrap?: Array<{ name: string }> }> },
  ];
  assert.deepEqual(
    made.renditions[0]!.bootstrap?.map((b) => b.name),
    ['boot-0.m4s', 'boot-1.m4s', 'boot-2.m4s'],
  );
  assert.equal(made.renditions[0]!.segments[0]!.name, 'seg-00000.m4s', 'joined into the first segment');
  // The runs of the first 30 s make their own audio head (the track up to their end); the rest copy their audio from the track.
  assert.deepEqual(
    [...runs]
      .sort((a, b) => a.chunk.index - b.chunk.index)
      .map((r) => [r.chunk.index, r.audioHead ?? false, r.audioTrackKey ?? null]),
    [
      [0, true, null],
      [1, true, null],
      [2, true, null],
      [3, false, `videos/${videoId}/work/audio-aac-128.mp4`],
    ],
  );
  // Nobody waits for the track at first: background work, raised by a request for a segment of 30 s on (segment 5) in any rendition.
  const [track] = calls.encodeAudioTrack![0] as [{ urgent?: boolean; justInTime?: unknown }];
  assert.equal(track.urgent, undefined);
  assert.deepEqual(track.justInTime, {
    awaiting: { renditions: ['360p', '480p', '720p'], firstSegment: 5, segmentCount: 2 },
  });

  const [planned] = calls.writePlannedPlaylists![0] as [{ renditions: Array<{ key: string }>; bootstrap?: boolean }];
  assert.equal(planned.bootstrap, true, 'the bootstrap playlists planned too');
  assert.deepEqual(
    planned.renditions.map((r) => r.key),
    ['360p', '480p', '720p'],
  );
  const [declared] = calls.writeMasterPlaylist![0] as [
    { variants: Array<{ bandwidth: number; averageBandwidth: number }> },
  ];
  // 360p at 500 kbit/s VBR with 128 kbit/s of audio: 2x the target at the peak, plus audio and 5 %.
  assert.equal(declared.variants[0]!.bandwidth, Math.ceil((1000 + 128) * 1000 * 1.05));
  assert.equal(declared.variants[0]!.averageBandwidth, Math.ceil((500 + 128) * 1000 * 1.05));
  assert.equal(calls.writeMasterPlaylist!.length, 2, 'written again with the measured figures once complete');

  const readies = calls.markVideoReady!.map(
    ([input]) => input as { segmentsPending?: boolean; renditions: Array<{ outcome: EncodeOutcome }> },
  );
  assert.deepEqual(
    readies.map((r) => r.segmentsPending),
    [true, false],
  );
  assert.equal(readies[0]!.renditions[0]!.outcome.segmentCount, 10, 'the planned count (writePlannedPlaylists)');
  assert.equal(readies[1]!.renditions[0]!.outcome.segmentCount, 7, 'the count of the segments made');
  // Each event reads the details first (notify): one event, when the video became playable.
  assert.equal(calls.videoDetails?.length, 1, 'one completed event: when the video became playable');
  await recordHistoryIfAsked(videoId, 'process-video-bootstrap-rest-with-next-run');
});

test('just in time: a run that fails for good after ready fails the video (ready to failed), with the failed webhook', async () => {
  const videoId = nextVideoId();
  const { activities, calls } = fakeActivities(videoId, {
    probeSource: () =>
      Promise.resolve({ ...probe720, durationSeconds: 40, videoDurationSeconds: 40, frameCount: 1000 }),
    justInTimeRuns: () => Promise.resolve({ runSeconds: 12 }),
    encodeChunk: async ({ renditions, chunk }) => {
      if (chunk.index === 3) {
        // The tail: after the video went ready.
        while (!calls.markVideoReady) await new Promise((resolve) => setTimeout(resolve, 20));
        throw ApplicationFailure.nonRetryable(
          'the source ends at about 31.0 s: the file is truncated or damaged',
          failureTypes.invalidSource,
        );
      }
      return renditions.map((plan) => outcomeFor(plan));
    },
  });
  const result = await runProcessVideo(videoId, activities);
  assert.equal(result.status, 'failed');
  assert.equal(calls.markVideoReady?.length, 1, 'ready once, with its first segment');
  const [failed] = calls.markVideoFailed![0] as [{ reason: string }];
  assert.match(failed.reason, /truncated or damaged/);
  assert.equal(calls.removeVideoOutputsButChunks?.length, 1, 'nothing plays any more; finished runs stay for a retry');
  assert.deepEqual(
    calls.videoDetails?.map(() => 'event'),
    ['event', 'event'],
    'completed when playable, then failed',
  );
  assert.ok(Object.keys(calls).indexOf('markVideoFailed') > Object.keys(calls).indexOf('markVideoReady'));
});

test('an invalid source fails the video at once: no retries, no encodes, cleanup, failed webhook', async () => {
  const videoId = nextVideoId();
  const webhookSent = signal();
  const { activities, calls } = fakeActivities(videoId, {
    probeSource: () =>
      Promise.reject(ApplicationFailure.nonRetryable('the file has no video stream', failureTypes.invalidSource)),
    sendWebhook: () => {
      webhookSent.resolve();
      return Promise.resolve({ status: 200 });
    },
  });
  const result = await runProcessVideo(videoId, activities, (r) => Promise.all([r, webhookSent.promise]));

  assert.deepEqual(result, { status: 'failed', reason: 'the file has no video stream' });
  assert.equal(calls.probeSource?.length, 1, 'an invalid source is not retried');
  assert.equal(calls.encodeRenditions, undefined);
  assert.equal(calls.markVideoReady, undefined);
  assert.deepEqual(calls.removeVideoOutputs, [[{ videoId }]]);
  assert.deepEqual(calls.markVideoFailed, [[{ videoId, reason: 'the file has no video stream' }]]);
  const [send] = calls.sendWebhook![0] as [{ payload: { event: string; status: string; data: unknown } }];
  assert.equal(send.payload.event, 'video.processing.failed');
  assert.equal(send.payload.status, 'failed');
  assert.deepEqual(send.payload.data, { publicID: videoId, readAfter: 'failed' });
});

test('a URL ingest: the source is fetched into the storage path first, then processed as an upload', async () => {
  const videoId = nextVideoId();
  const storagePath = `ingests/org_1/env_1/${videoId}/source`;
  const order: string[] = [];
  const { activities, calls } = fakeActivities(videoId, {
    loadVideoJob: () =>
      Promise.resolve({
        videoId,
        storagePath,
        sourceUrl: 'https://example.com/a.mp4',
        quality: 'standard',
        parameters: { ...defaultEncodingParameters },
        status: 'transcoding',
        deleted: false,
      }),
    fetchIngestSource: () => (order.push('fetch'), Promise.resolve({ sizeBytes: 1_000_000, resumes: 1 })),
    probeSource: () => (order.push('probe'), Promise.resolve(probe720)),
  });
  const result = await runProcessVideo(videoId, activities);
  assert.equal(result.status, 'ready');
  assert.deepEqual(calls.fetchIngestSource, [[{ videoId, url: 'https://example.com/a.mp4', storagePath }]]);
  assert.deepEqual(order, ['fetch', 'probe']);
  assert.equal((calls.probeSource![0]![0] as { storagePath: string }).storagePath, storagePath);
});

test('a URL ingest whose source answers 404 fails the video with the reason: no probe, failed webhook', async () => {
  const videoId = nextVideoId();
  const webhookSent = signal();
  const { activities, calls } = fakeActivities(videoId, {
    loadVideoJob: () =>
      Promise.resolve({
        videoId,
        storagePath: `ingests/org_1/env_1/${videoId}/source`,
        sourceUrl: 'https://example.com/gone.mp4',
        quality: 'standard',
        parameters: { ...defaultEncodingParameters },
        status: 'transcoding',
        deleted: false,
      }),
    fetchIngestSource: () =>
      Promise.reject(
        ApplicationFailure.nonRetryable('source_http_error: the source URL answered 404', failureTypes.invalidSource),
      ),
    sendWebhook: () => (webhookSent.resolve(), Promise.resolve({ status: 200 })),
  });
  const result = await runProcessVideo(videoId, activities, (r) => Promise.all([r, webhookSent.promise]));
  assert.deepEqual(result, { status: 'failed', reason: 'source_http_error: the source URL answered 404' });
  assert.equal(calls.fetchIngestSource?.length, 1, 'a final failure is not retried');
  assert.equal(calls.probeSource, undefined);
  assert.deepEqual(calls.markVideoFailed, [[{ videoId, reason: 'source_http_error: the source URL answered 404' }]]);
  const [send] = calls.sendWebhook![0] as [{ payload: { event: string } }];
  assert.equal(send.payload.event, 'video.processing.failed');
});

test('an uploaded video (no sourceUrl) fetches nothing', async () => {
  const videoId = nextVideoId();
  const { activities, calls } = fakeActivities(videoId);
  assert.equal((await runProcessVideo(videoId, activities)).status, 'ready');
  assert.equal(calls.fetchIngestSource, undefined);
});

test('a node lost mid-encode: the encode is retried and the video becomes ready', async () => {
  const videoId = nextVideoId();
  let attempts720 = 0;
  const { activities, calls } = fakeActivities(videoId, {
    encodeRenditions: ({ renditions: [rendition] }) => {
      if (rendition!.key === '720p' && ++attempts720 === 1) {
        return Promise.reject(
          ApplicationFailure.retryable(
            'node node_a lost during the encode of 720p: UNAVAILABLE',
            failureTypes.nodeLost,
          ),
        );
      }
      return Promise.resolve([{ ...outcomeFor(rendition!), nodeId: attempts720 > 1 ? 'node_b' : 'node_a' }]);
    },
  });
  const result = await runProcessVideo(videoId, activities);

  assert.equal(result.status, 'ready');
  assert.equal(attempts720, 2);
  assert.equal(calls.encodeRenditions?.length, 4);
  assert.equal(calls.markVideoFailed, undefined);
  if (result.status === 'ready')
    assert.equal(result.renditions.find((r) => r.plan.key === '720p')?.outcome.nodeId, 'node_b');
});

/** Runs liveBroadcast for a fresh video id on a worker with `activities` until its result. */
async function runLiveBroadcast(videoId: string, activities: Activities): Promise<LiveBroadcastResult> {
  const taskQueue = `test-${videoId}`;
  const worker = await Worker.create({ ...workerOptions(), taskQueue, activities });
  const handle = await env.client.workflow.start('liveBroadcast', {
    taskQueue,
    workflowId: workflowIds.liveBroadcast(videoId),
    args: [{ videoId, liveStreamId: 'ls_test', sourceUrl: 'rtmp://ingest/broadcast/x', probeUrl: 'rtmp://ingest/x' }],
  });
  const result = handle.result() as Promise<LiveBroadcastResult>;
  await worker.runUntil(result);
  return result;
}

const nodeLost = () =>
  Promise.reject(
    ApplicationFailure.retryable('node node_a lost during the live encode: UNAVAILABLE', failureTypes.nodeLost),
  );

test('a broadcast whose node is lost is taken over at once, going on from what is stored, and recorded', async () => {
  const videoId = nextVideoId();
  let calls = 0;
  const { activities, calls: recorded } = fakeActivities(videoId, {
    encodeLive: (input) => (++calls === 1 ? nodeLost() : liveFakes.encodeLive(input)),
  });
  const result = await runLiveBroadcast(videoId, activities);
  assert.equal(result.status, 'ready');
  const inputs = recorded.encodeLive!.map(([input]) => (input as { resume?: boolean }).resume);
  assert.deepEqual(inputs, [undefined, true], 'the second call takes over from what is stored');
  assert.equal(recorded.endStoredBroadcast, undefined);
  assert.equal(recorded.markVideoFailed, undefined);
});

test('a broadcast whose node is lost after its publisher went ends its recording from what is stored', async () => {
  const videoId = nextVideoId();
  const { activities, calls } = fakeActivities(videoId, {
    encodeLive: nodeLost,
    broadcastRuns: () => Promise.resolve(false),
  });
  const result = await runLiveBroadcast(videoId, activities);
  assert.equal(result.status, 'ready');
  assert.equal(calls.encodeLive!.length, 1, 'no node is placed for a broadcast that is over');
  assert.equal(calls.endStoredBroadcast!.length, 1);
});

test('a low-latency broadcast: its ended playlists keep their parts three target durations, the recording ready meanwhile', async () => {
  const videoId = nextVideoId();
  const { activities, calls } = fakeActivities(videoId, {
    loadVideoJob: () =>
      Promise.resolve({
        videoId,
        storagePath: '',
        quality: 'standard',
        parameters: { ...defaultEncodingParameters },
        status: 'transcoding',
        deleted: false,
        liveLatency: 'low',
      }),
  });
  const result = await runLiveBroadcast(videoId, activities);
  await recordHistoryIfAsked(videoId, 'live-broadcast-ended-parts-kept', workflowIds.liveBroadcast(videoId));
  assert.equal(result.status, 'ready');
  const [input] = calls.encodeLive![0] as [LiveEncodeInput];
  assert.equal(input.keepEndedParts, true, 'the ended playlists keep their parts');
  const renditions = input.renditions.map((plan) => plan.key);
  assert.deepEqual(calls.endKeptParts, [[{ videoId, renditions }]]);
  // In the history: the grace's timer started after the encode, the recording marked ready before it
  // fired, the parts ended after.
  const { events } = await env.client.workflow.getHandle(workflowIds.liveBroadcast(videoId)).fetchHistory();
  const order = (events ?? []).flatMap((event) => {
    const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (activity === 'encodeLive' || activity === 'markVideoReady' || activity === 'endKeptParts') return [activity];
    if (event.timerStartedEventAttributes)
      return [`timer ${Number(event.timerStartedEventAttributes.startToFireTimeout?.seconds)} s`];
    return event.timerFiredEventAttributes ? ['timer fired'] : [];
  });
  assert.deepEqual(order, ['encodeLive', 'timer 18 s', 'markVideoReady', 'timer fired', 'endKeptParts']);
});

test('a broadcast whose node refuses the work itself fails: no takeover', async () => {
  const videoId = nextVideoId();
  const { activities, calls } = fakeActivities(videoId, {
    encodeLive: () => Promise.reject(ApplicationFailure.nonRetryable('a bad request', failureTypes.invalidRequest)),
  });
  const result = await runLiveBroadcast(videoId, activities);
  assert.equal(result.status, 'failed');
  assert.equal(calls.encodeLive!.length, 1);
  assert.equal(calls.broadcastRuns, undefined);
});

test('encode queue: encodes go straight to the queue (no slot poll first); one that waited its whole turn waits for a node, then queues again', async () => {
  const videoId = nextVideoId();
  let attempts720 = 0;
  const { activities, calls } = fakeActivities(videoId, {
    encodeRenditions: ({ renditions: [rendition] }) => {
      if (rendition!.key === '720p' && ++attempts720 === 1) {
        // As the activity after encodeQueueWaitMinutes without a slot: final for this activity.
        return Promise.reject(
          ApplicationFailure.nonRetryable('no encode slot came free in 10 minutes', failureTypes.noNodeAvailable),
        );
      }
      return Promise.resolve([outcomeFor(rendition!)]);
    },
  });
  const result = await runProcessVideo(videoId, activities);
  assert.equal(result.status, 'ready');
  assert.equal(attempts720, 2, 'queued again in a new activity');
  assert.equal(calls.encodeRenditions?.length, 4);
  // Capacity is asked for a live node only (probe, thumbnail, storyboard, and the one long wait): never for a free slot.
  assert.ok(
    (calls.waitForNodeCapacity ?? []).every(([options]) => (options as { freeSlot: boolean }).freeSlot === false),
  );
  assert.equal(calls.waitForNodeCapacity?.length, 4);
});

test('no node online: the workflow waits (video stays transcoding), then proceeds when capacity appears', async () => {
  const videoId = nextVideoId();
  let nodeOnline = false;
  let refusals = 0;
  const waitedTwice = signal();
  const { activities, calls } = fakeActivities(videoId, {
    waitForNodeCapacity: () => {
      if (nodeOnline) return Promise.resolve();
      if (++refusals === 2) waitedTwice.resolve();
      return Promise.reject(
        ApplicationFailure.retryable('waiting for an encode node with a free slot', failureTypes.noNodeAvailable),
      );
    },
  });
  const result = await runProcessVideo(videoId, activities, async (r) => {
    await waitedTwice.promise;
    // Still waiting: nothing was probed, nothing marked; the pending activity shows why.
    const description = await env.client.workflow.getHandle(workflowIds.processVideo(videoId)).describe();
    assert.equal(description.status.name, 'RUNNING');
    const pending = description.raw.pendingActivities ?? [];
    assert.equal(pending[0]?.activityType?.name, 'waitForNodeCapacity');
    assert.equal(calls.probeSource, undefined);
    assert.equal(calls.markVideoFailed, undefined);
    nodeOnline = true;
    return r;
  });
  assert.equal(result.status, 'ready');
  assert.ok(refusals >= 2);
});

test('a failing webhook endpoint never holds the video back', async () => {
  const videoId = nextVideoId();
  const firstAttempt = signal();
  const { activities, calls } = fakeActivities(videoId, {
    sendWebhook: () => {
      firstAttempt.resolve();
      return Promise.reject(new Error('webhook endpoint answered 500'));
    },
  });
  const result = await runProcessVideo(videoId, activities, (r) => Promise.all([r, firstAttempt.promise]));
  assert.equal(result.status, 'ready');
  assert.equal(calls.markVideoReady?.length, 1);

  // The delivery goes on in its own workflow, which outlives the video's.
  const deliveries = env.client.workflow.list({
    query: `WorkflowType = 'deliverWebhooks' AND WorkflowId STARTS_WITH 'webhook:${videoId}:'`,
  });
  const found: string[] = [];
  for await (const execution of deliveries) {
    found.push(execution.status.name);
    await env.client.workflow.getHandle(execution.workflowId).terminate('test over');
  }
  assert.deepEqual(found, ['RUNNING']);
});

test('an encode that fails for good cancels its siblings, cleans up and fails the video', async () => {
  const videoId = nextVideoId();
  const cancelled: string[] = [];
  const { activities, calls } = fakeActivities(videoId, {
    encodeRenditions: async ({ renditions: [rendition] }) => {
      if (rendition!.key === '360p')
        throw ApplicationFailure.nonRetryable('ffmpeg could not decode the source', failureTypes.invalidSource);
      // The others run until cancelled.
      const { Context } = await import('@temporalio/activity');
      const context = Context.current();
      for (;;) {
        context.heartbeat();
        try {
          await context.sleep(200);
        } catch (error) {
          cancelled.push(rendition!.key);
          throw error;
        }
      }
    },
  });
  const result = await runProcessVideo(videoId, activities);
  assert.deepEqual(result, { status: 'failed', reason: 'ffmpeg could not decode the source' });
  assert.deepEqual(cancelled.sort(), ['480p', '720p']);
  assert.equal(calls.removeVideoOutputs?.length, 1);
  assert.equal(calls.markVideoFailed?.length, 1);
});

test('a deleted or finished video is skipped', async () => {
  const videoId = nextVideoId();
  const { activities: healthy } = fakeActivities(videoId);
  const job = (await healthy.loadVideoJob(videoId))!;
  const { activities, calls } = fakeActivities(videoId, {
    loadVideoJob: () => Promise.resolve({ ...job, deleted: true }),
  });
  const result = await runProcessVideo(videoId, activities);
  assert.deepEqual(result, { status: 'skipped', reason: 'video deleted' });
  assert.equal(calls.probeSource, undefined);
});

test("deleteVideoContent stops the video's processing and removes its files", async () => {
  const videoId = nextVideoId();
  const encoding = signal();
  const removed = signal();
  const { activities, calls } = fakeActivities(videoId, {
    encodeRenditions: async () => {
      encoding.resolve();
      const { Context } = await import('@temporalio/activity');
      const context = Context.current();
      for (;;) {
        context.heartbeat();
        await context.sleep(200);
      }
    },
    removeVideoContent: () => {
      removed.resolve();
      return Promise.resolve({ removed: 3 });
    },
  });
  const taskQueue = `test-${videoId}`;
  const worker = await Worker.create({ ...workerOptions(), taskQueue, activities });
  await worker.runUntil(async () => {
    const processing = await env.client.workflow.start('processVideo', {
      taskQueue,
      workflowId: workflowIds.processVideo(videoId),
      args: [{ videoId }],
    });
    await encoding.promise;
    const deleting = await env.client.workflow.start('deleteVideoContent', {
      taskQueue,
      workflowId: workflowIds.deleteVideoContent(videoId),
      args: [{ videoId }],
    });
    await assert.rejects(processing.result(), /cancelled/i);
    await removed.promise;
    // The second sweep waits for late writes; the test has seen what it needs.
    await deleting.terminate('test over');
  });
  assert.ok((calls.removeVideoOutputs?.length ?? 0) >= 1, 'the cancelled run cleaned its outputs');
  assert.deepEqual(calls.removeVideoContent?.[0], [{ videoId }]);
});

test('no activity a video waits on can be lost for minutes: each has a heartbeat timeout, or a start-to-close timeout, of seconds', async () => {
  // A chunked video (every kind of node work and storage housekeeping) and a failed one (its cleanup).
  const chunked = nextVideoId();
  await runProcessVideo(
    chunked,
    fakeActivities(chunked, {
      probeSource: () => Promise.resolve({ ...probe720, durationSeconds: 20, frameCount: 600 }),
      encodeChunkSeconds: () => Promise.resolve(6),
    }).activities,
  );
  const failed = nextVideoId();
  await runProcessVideo(
    failed,
    fakeActivities(failed, {
      probeSource: () =>
        Promise.reject(ApplicationFailure.nonRetryable('the file has no video stream', failureTypes.invalidSource)),
    }).activities,
  );

  const seconds = (duration: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
    duration ? Number(duration.seconds ?? 0) + (duration.nanos ?? 0) / 1e9 : 0;
  const timeouts = new Map<string, { heartbeat: number; startToClose: number }>();
  for (const videoId of [chunked, failed]) {
    const history = await env.client.workflow.getHandle(workflowIds.processVideo(videoId)).fetchHistory();
    for (const event of history.events ?? []) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (!scheduled) continue;
      timeouts.set(scheduled.activityType!.name!, {
        heartbeat: seconds(scheduled.heartbeatTimeout),
        startToClose: seconds(scheduled.startToCloseTimeout),
      });
    }
  }
  for (const name of [
    'probeSource',
    'makeThumbnail',
    'makeStoryboard',
    'encodeAudioTrack',
    'encodeChunk',
    'findFinishedChunks',
    'writeRenditionPlaylists',
    'writeMasterPlaylist',
    'removeWorkFiles',
    'removeVideoOutputs',
  ]) {
    assert.ok(timeouts.has(name), `${name} was scheduled`);
  }
  const lostForMinutes = [...timeouts].filter(
    ([, t]) => !(t.heartbeat > 0 && t.heartbeat <= 20) && !(t.startToClose <= 30),
  );
  assert.deepEqual(lostForMinutes, []);
});

test('an audio-only source: one encode of the 0p rendition, no thumbnail, storyboard or chunks; audio.m4a; ready', async () => {
  const videoId = nextVideoId();
  const song: SourceProbe = {
    ...probe720,
    width: 0,
    height: 0,
    frameRate: 0,
    frameCount: 0,
    videoCodec: '',
    pixelFormat: '',
    durationSeconds: 30,
    videoDurationSeconds: 30,
  };
  const { activities, calls } = fakeActivities(videoId, {
    probeSource: () => Promise.resolve(song),
    // Chunking on: an audio-only video is still one encode.
    encodeChunkSeconds: () => Promise.resolve(6),
    encodeRenditions: ({ renditions }) =>
      Promise.resolve(
        renditions.map((plan) => ({
          ...outcomeFor(plan),
          codecs: 'mp4a.40.2',
          bandwidth: 140_000,
          averageBandwidth: 131_000,
          frameCount: 0,
        })),
      ),
  });
  const result = await runProcessVideo(videoId, activities);

  assert.equal(result.status, 'ready');
  const [input] = calls.encodeRenditions![0] as [{ renditions: RenditionPlan[] }];
  assert.deepEqual(
    input.renditions.map((r) => [r.key, r.width, r.height, r.videoBitrateKbps, r.audioBitrateKbps]),
    [['0p', 0, 0, 0, 128]],
  );
  assert.equal(calls.encodeRenditions!.length, 1);
  assert.equal(calls.encodeChunk, undefined, 'not chunked');
  assert.equal(calls.encodeChunkSeconds, undefined);
  assert.equal(calls.makeThumbnail, undefined, 'no picture to take');
  assert.equal(calls.makeStoryboard, undefined);
  const [master] = calls.writeMasterPlaylist![0] as [
    { variants: Array<{ key: string; width: number; height: number; frameRate: number; codecs: string }> },
  ];
  assert.deepEqual(master.variants, [
    {
      key: '0p',
      width: 0,
      height: 0,
      frameRate: 0,
      codecs: 'mp4a.40.2',
      bandwidth: 140_000,
      averageBandwidth: 131_000,
    },
  ]);
  const [download] = calls.makeAudioDownload![0] as [{ audioTrackKey?: string; rendition: RenditionPlan }];
  assert.equal(download.audioTrackKey, undefined);
  assert.equal(download.rendition.key, '0p');
  const [ready] = calls.markVideoReady![0] as [
    { thumbnailKey: string | null; storyboardKey: string | null; audioKey: string | null },
  ];
  assert.deepEqual(
    [ready.thumbnailKey, ready.storyboardKey, ready.audioKey],
    [null, null, `videos/${videoId}/audio.m4a`],
  );
  await recordHistoryIfAsked(videoId, 'process-video-audio-only');
});

test('a silent video gets no audio.m4a; an audio.m4a that cannot be made leaves the video ready without one', async () => {
  const silentId = nextVideoId();
  const silent = fakeActivities(silentId, {
    probeSource: () =>
      Promise.resolve({ ...probe720, hasAudio: false, audioCodec: '', audioChannels: 0, audioSampleRate: 0 }),
  });
  assert.equal((await runProcessVideo(silentId, silent.activities)).status, 'ready');
  assert.equal(silent.calls.makeAudioDownload, undefined);
  assert.equal((silent.calls.markVideoReady![0] as [{ audioKey: string | null }])[0].audioKey, null);

  const brokenId = nextVideoId();
  const broken = fakeActivities(brokenId, {
    makeAudioDownload: () =>
      Promise.reject(ApplicationFailure.nonRetryable('ffmpeg said no', failureTypes.invalidRequest)),
  });
  assert.equal((await runProcessVideo(brokenId, broken.activities)).status, 'ready');
  assert.equal((broken.calls.markVideoReady![0] as [{ audioKey: string | null }])[0].audioKey, null);
});

test('several audio tracks: each is an alternate audio rendition of its own encode, the pictures have no sound, the master and the records have them', async () => {
  const dubbedProbe: SourceProbe = {
    ...probe720,
    audioTracks: [
      { language: 'eng', title: '', isDefault: true, channels: 2 },
      { language: 'spa', title: '', isDefault: false, channels: 2 },
    ],
  };
  const audioOutcome = (plan: RenditionPlan): EncodeOutcome => ({
    ...outcomeFor(plan),
    codecs: 'mp4a.40.2',
    bandwidth: 140_000,
    averageBandwidth: 134_000,
  });
  const encodeRenditions: Activities['encodeRenditions'] = ({ renditions }) =>
    Promise.resolve(renditions.map((plan) => (plan.audioTrack ? audioOutcome(plan) : outcomeFor(plan))));
  type Master = {
    variants: Array<{ key: string }>;
    audio?: Array<{ key: string; language: string; isDefault: boolean }>;
  };
  const masterAudio = (calls: Calls) =>
    calls.writeMasterPlaylist!.map(([input]) => (input as Master).audio?.map((a) => [a.key, a.language, a.isDefault]));
  const encoded = (calls: Calls) =>
    (calls.encodeRenditions ?? []).map(([input]) =>
      (input as { renditions: RenditionPlan[] }).renditions.map((r) => [r.key, r.audioBitrateKbps]),
    );

  // Whole: the pictures' encodes and one encode per track.
  const whole = nextVideoId();
  const { activities, calls } = fakeActivities(whole, {
    probeSource: () => Promise.resolve(dubbedProbe),
    encodeRenditions,
  });
  assert.equal((await runProcessVideo(whole, activities)).status, 'ready');
  assert.deepEqual(encoded(calls).sort(), [
    [['0p-a1', 128]],
    [['0p-a2', 128]],
    [['360p', 0]],
    [['480p', 0]],
    [['720p', 0]],
  ]);
  assert.deepEqual(masterAudio(calls), [
    [
      ['0p-a1', 'en', true],
      ['0p-a2', 'es', false],
    ],
  ]);
  assert.deepEqual(
    (calls.writeMasterPlaylist![0]![0] as Master).variants.map((v) => v.key),
    ['360p', '480p', '720p'],
  );
  const [ready] = calls.markVideoReady![0] as [{ renditions: Array<{ plan: RenditionPlan }> }];
  assert.deepEqual(
    ready.renditions.map((r) => r.plan.key),
    ['360p', '480p', '720p', '0p-a1', '0p-a2'],
  );

  // Just in time: no audio track or heads for the runs; the master written at ready has the tracks already.
  const jit = nextVideoId();
  const timed = fakeActivities(jit, {
    probeSource: () =>
      Promise.resolve({ ...dubbedProbe, durationSeconds: 40, videoDurationSeconds: 40, frameCount: 1000 }),
    justInTimeRuns: () => Promise.resolve({ runSeconds: 12 }),
    encodeRenditions,
  });
  assert.equal((await runProcessVideo(jit, timed.activities)).status, 'ready');
  assert.equal(timed.calls.encodeAudioTrack, undefined, 'the runs carry no sound');
  for (const [input] of timed.calls.encodeChunk!) {
    const chunk = input as { renditions: RenditionPlan[]; audioHead?: boolean; audioTrackKey?: string };
    assert.deepEqual(
      [chunk.audioHead, chunk.audioTrackKey, chunk.renditions.every((r) => r.audioBitrateKbps === 0)],
      [undefined, undefined, true],
    );
  }
  assert.deepEqual(masterAudio(timed.calls), [
    [
      ['0p-a1', 'en', true],
      ['0p-a2', 'es', false],
    ],
    [
      ['0p-a1', 'en', true],
      ['0p-a2', 'es', false],
    ],
  ]);
  const [published] = timed.calls.markVideoReady![0] as [
    { renditions: Array<{ plan: RenditionPlan }>; segmentsPending: boolean },
  ];
  assert.deepEqual(
    [published.segmentsPending, published.renditions.map((r) => r.plan.key)],
    [true, ['360p', '480p', '720p', '0p-a1', '0p-a2']],
  );
});

test("addAudioTrack: the file probed, its first audio stream one alternate audio rendition of the video's length, the track ready; a file without sound fails it", async () => {
  const run = async (overrides: Partial<Activities>) => {
    const videoId = nextVideoId();
    const { activities, calls } = fakeActivities(videoId, overrides);
    const taskQueue = `test-${videoId}`;
    const worker = await Worker.create({ ...workerOptions(), taskQueue, activities });
    const handle = await env.client.workflow.start('addAudioTrack', {
      taskQueue,
      workflowId: workflowIds.addAudioTrack(videoId, '0p-a3'),
      args: [{ videoId, language: 'es', renditionKey: '0p-a3' }],
    });
    const result = (await worker.runUntil(handle.result())) as { status: string; reason?: string };
    return { result, calls };
  };
  // A track of 7 s for a video of 4 s (loadAudioTrackJob's): encoded to the video's length.
  const spanish: SourceProbe = {
    ...probe720,
    width: 0,
    height: 0,
    frameRate: 0,
    frameCount: 0,
    durationSeconds: 7,
    videoDurationSeconds: 0,
    audioTracks: [{ language: 'spa', title: '', isDefault: true, channels: 1 }],
  };
  const made = await run({
    probeSource: () => Promise.resolve(spanish),
    encodeRenditions: ({ renditions }) =>
      Promise.resolve(renditions.map((plan) => ({ ...outcomeFor(plan), codecs: 'mp4a.40.2', bandwidth: 140_000 }))),
  });
  assert.deepEqual(made.result, { status: 'ready' });
  const [encode] = made.calls.encodeRenditions!.map(([input]) => input) as Array<{
    storagePath: string;
    renditions: RenditionPlan[];
    durationSeconds: number;
    probe: SourceProbe;
  }>;
  assert.equal(made.calls.encodeRenditions!.length, 1);
  assert.match(encode!.storagePath, /-es\.m4a$/);
  assert.deepEqual(
    encode!.renditions.map((r) => [r.key, r.width, r.videoBitrateKbps, r.audioBitrateKbps, r.audioTrack]),
    [['0p-a3', 0, 0, 128, { language: 'es', name: 'Spanish', isDefault: false, channels: 1, stream: 0 }]],
  );
  assert.deepEqual([encode!.durationSeconds, encode!.renditions[0]!.audioEndSeconds], [4, 4]);
  const [ready] = made.calls.markAudioTrackReady![0] as [{ language: string; result: { plan: RenditionPlan } }];
  assert.deepEqual([ready.language, ready.result.plan.key], ['es', '0p-a3']);
  assert.equal(made.calls.markAudioTrackFailed, undefined);
  assert.equal(made.calls.writeMasterPlaylist, undefined, 'the stored master is not written again');

  const silent = await run({ probeSource: () => Promise.resolve({ ...probe720, hasAudio: false }) });
  assert.deepEqual(silent.result, { status: 'failed', reason: 'the file has no audio stream' });
  assert.equal(silent.calls.encodeRenditions, undefined);
  assert.deepEqual(silent.calls.markAudioTrackFailed![0], [
    {
      videoId: (silent.calls.loadAudioTrackJob![0]![0] as { videoId: string }).videoId,
      language: 'es',
      renditionKey: '0p-a3',
      reason: 'the file has no audio stream',
    },
  ]);

  // Replaced or removed before the run began: nothing is made.
  const gone = await run({ loadAudioTrackJob: () => Promise.resolve(null) });
  assert.equal(gone.result.status, 'skipped');
  assert.equal(gone.calls.probeSource, undefined);
  // A video of alternate audio already (a source with several tracks): its sound is not separated again.
  assert.equal(made.calls.loadSoundSeparationJob, undefined);
});

test('addAudioTrack of a video whose sound is in its pictures: its sound made 0p-a1 from the source and each picture copied without it, once, beside the track; a failed separation fails the track', async () => {
  const run = async (overrides: Partial<Activities>) => {
    const videoId = nextVideoId();
    const { activities, calls } = fakeActivities(videoId, {
      loadAudioTrackJob: () =>
        Promise.resolve({
          storagePath: `uploads/org_1/env_1/upl_2/${videoId}-es.m4a`,
          name: 'Spanish',
          isDefault: false,
          durationSeconds: 4,
          parameters: { ...defaultEncodingParameters },
          soundInPictures: true,
        }),
      ...overrides,
    });
    const taskQueue = `test-${videoId}`;
    const worker = await Worker.create({ ...workerOptions(), taskQueue, activities });
    const handle = await env.client.workflow.start('addAudioTrack', {
      taskQueue,
      workflowId: workflowIds.addAudioTrack(videoId, '0p-a2'),
      args: [{ videoId, language: 'es', renditionKey: '0p-a2' }],
    });
    const result = (await worker.runUntil(handle.result())) as { status: string; reason?: string };
    return { result, calls, videoId };
  };
  const english = { ...probe720, audioTracks: [{ language: 'eng', title: '', isDefault: true, channels: 2 }] };
  const made = await run({ probeSource: () => Promise.resolve(english) });
  assert.deepEqual(made.result, { status: 'ready' });
  const encodes = made.calls.encodeRenditions!.map(([input]) => input) as Array<{
    storagePath: string;
    renditions: RenditionPlan[];
  }>;
  const byKey = Object.fromEntries(encodes.map((e) => [e.renditions[0]!.key, e]));
  assert.deepEqual(Object.keys(byKey).sort(), ['0p-a1', '0p-a2', '360p-v', '720p-v']);
  // The video's own sound: from its source, named as the source names it, the default, the video's length.
  assert.match(byKey['0p-a1']!.storagePath, new RegExp(`upl_1/${made.videoId}\\.mp4$`));
  assert.deepEqual(byKey['0p-a1']!.renditions[0]!.audioTrack, {
    language: 'en',
    name: 'English',
    isDefault: true,
    channels: 2,
    stream: 0,
  });
  assert.equal(byKey['0p-a1']!.renditions[0]!.audioEndSeconds, 4);
  // Each picture from its own playlist, copied.
  for (const edge of [360, 720]) {
    assert.equal(byKey[`${edge}p-v`]!.storagePath, `videos/${made.videoId}/work/picture-copy/${edge}p.m3u8`);
    assert.equal(byKey[`${edge}p-v`]!.renditions[0]!.pictureCopy, true);
  }
  const [finish] = made.calls.finishSoundSeparation![0] as [
    { sound: { plan: RenditionPlan }; copies: Array<{ plan: RenditionPlan }> },
  ];
  assert.deepEqual([finish.sound.plan.key, finish.copies.map((c) => c.plan.key)], ['0p-a1', ['360p-v', '720p-v']]);
  assert.equal(made.calls.markAudioTrackReady!.length, 1);

  // Separated before (another track's run did it): nothing made again, the track made.
  const before = await run({ loadSoundSeparationJob: () => Promise.resolve(null) });
  assert.deepEqual(before.result, { status: 'ready' });
  assert.equal(before.calls.encodeRenditions!.length, 1);

  // A copy cut apart from its original: the track fails with that reason.
  const reason = 'the copy of 720p without sound is cut apart from it (segments of 6, 1.2 s, not 6, 1.3 s)';
  const apart = await run({
    probeSource: () => Promise.resolve(english),
    finishSoundSeparation: () => Promise.reject(ApplicationFailure.nonRetryable(reason, 'InvalidRequest')),
  });
  assert.deepEqual(apart.result, { status: 'failed', reason });
  assert.equal(apart.calls.markAudioTrackReady, undefined);
  assert.equal((apart.calls.markAudioTrackFailed![0]![0] as { reason: string }).reason, reason);
});

test('generated subtitles: a ready video asked for them starts one run per language; the track is the language the engine heard for `auto`; a failure leaves the video ready', async () => {
  const run = async (overrides: Partial<Activities>) => {
    const videoId = nextVideoId();
    const job: VideoJob = {
      videoId,
      storagePath: `uploads/org_1/env_1/upl_1/${videoId}.mp4`,
      quality: 'standard',
      parameters: { ...defaultEncodingParameters, generatedSubtitles: [{ language: 'auto', label: 'Spoken' }] },
      status: 'transcoding',
      deleted: false,
    };
    const { activities, calls } = fakeActivities(videoId, { loadVideoJob: () => Promise.resolve(job), ...overrides });
    const captions = async (result: Promise<ProcessVideoResult>) => {
      await result;
      return env.client.workflow.getHandle(workflowIds.generateCaptions(videoId, 'auto')).result();
    };
    let captioned: unknown;
    const processed = await runProcessVideo(videoId, activities, async (result) => {
      captioned = await captions(result);
    });
    return { processed, captioned, calls };
  };
  const made = await run({});
  assert.equal(made.processed.status, 'ready');
  assert.deepEqual(made.captioned, { status: 'ready', language: 'en', cues: 3, pieces: 3 });
  // The first piece detects the language; the others are asked for it; the join gets every piece's words.
  const transcribed = made.calls.transcribeSpeech!.map(
    ([input]) => input as { language: string; piece: { index: number } },
  );
  assert.deepEqual(
    transcribed.map((input) => [input.piece.index, input.language]),
    [
      [0, 'auto'],
      [1, 'en'],
      [2, 'en'],
    ],
  );
  const [joined] = made.calls.joinTranscript![0] as [{ language: string; pieces: { wordsKey: string }[] }];
  assert.equal(joined.language, 'en');
  assert.deepEqual(
    joined.pieces.map((piece) => piece.wordsKey.split('/').at(-1)),
    ['0.json', '1.json', '2.json'],
  );
  const [stored] = made.calls.storeGeneratedCaptionTrack![0] as [{ language: string; label: string; key: string }];
  assert.deepEqual([stored.language, stored.label], ['en', 'Spoken']);

  const failed = await run({
    transcribeSpeech: () =>
      Promise.reject(ApplicationFailure.nonRetryable('the source has no sound', failureTypes.invalidSource)),
  });
  assert.equal(failed.processed.status, 'ready');
  assert.deepEqual(failed.captioned, { status: 'failed', reason: 'the source has no sound' });
  assert.equal(failed.calls.storeGeneratedCaptionTrack, undefined);
  assert.equal(failed.calls.markVideoFailed, undefined);
});
