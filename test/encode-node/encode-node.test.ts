// An encode node as a separate process (`kino node start`), registered with a real registry on
// PostgreSQL, reading and writing a real S3 server that checks signatures — only through presigned
// URLs, since the node's environment has no storage settings. Outputs are checked by decoding them.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Storage, createLogger, newId } from '@kino/infra';
import { waitFor } from '@kino/dev';
import {
  GrpcStatus,
  NodeJobFailure,
  createEncodeClient,
  isServiceError,
  type EncodeClient,
  type EncodeProgress__Output,
  type EncodeRequest,
  type RenditionSpec,
} from '@kino/proto';
import { hlsOutputFileNames } from '@kino/ffmpeg';
import { processWorkDir } from '@kino/encode-node';
import { contentTypeForHlsFile, objectKeys } from '@kino/proto/contract';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { countDecodedFrames, makeClip } from '@kino/test/support/media';
import { listEncodeNodes } from '@kino/database/repositories';
import { migrateToLatest, openDatabase, type Db } from '@kino/database';
import { startRegistryServer, type RegistryServer } from '@kino/orchestrator';
import { createNodeFarm, planLadder } from '@kino/orchestrator';
import { createNodeActivities } from '@kino/orchestrator';
import { startNodeProcess, type NodeProcess } from './node-process.ts';

const run = promisify(execFile);
const token = 'farm-token-for-tests';

let services: TestServices;
let db: Db;
let storage: Storage;
let registry: RegistryServer;
let node: NodeProcess;
let client: EncodeClient;
let dir: string;
let workDir: string;
let jobsDir: string;
/** Source keys in the bucket. */
const sources = {
  clip: 'uploads/org_t/env_t/upl_clip/clip.mp4',
  long: 'uploads/org_t/env_t/upl_long/long.mp4',
  silent: 'uploads/org_t/env_t/upl_silent/silent.mp4',
  tiny: 'uploads/org_t/env_t/upl_tiny/tiny.mp4',
};

const rendition = (overrides: Partial<RenditionSpec> = {}): RenditionSpec => ({
  key: '360p',
  width: 640,
  height: 360,
  videoBitrateKbps: 800,
  audioBitrateKbps: 128,
  frameRate: 30,
  pixelFormat: 'yuv420p',
  rateControlMode: 'variableBitrate',
  twoPass: false,
  x264Preset: 'veryfast',
  audioCodec: 'aac',
  segmentSeconds: 6,
  ...overrides,
});

/** Presigned PUTs for every file an encode of `durationSeconds` can write, at the storage layout. */
async function outputUrlsFor(
  videoId: string,
  height: number,
  durationSeconds: number,
): Promise<Record<string, string>> {
  const urls: Record<string, string> = {};
  for (const name of hlsOutputFileNames(durationSeconds)) {
    urls[name] = await storage.presignPut(
      `${objectKeys.renditionDir(videoId, height)}/${name}`,
      3600,
      contentTypeForHlsFile(name),
    );
  }
  return urls;
}

/** The source's probe, as the orchestrator asks a node for it once and sends it with every encode. */
function probeOf(inputUrl: string) {
  return client.probe({ jobId: newId('job'), inputUrl });
}

/**
 * A whole-video encode of `renditions`, with the source's probe: the request as the orchestrator
 * sends it (the node takes the duration from the probe: `durationSeconds` says what the test expects).
 */
async function wholeEncode({
  jobId,
  videoId,
  inputUrl,
  renditions,
  outputUrls,
}: {
  jobId: string;
  videoId: string;
  inputUrl: string;
  durationSeconds?: number;
  renditions: RenditionSpec[];
  outputUrls: Record<string, string>;
}): Promise<EncodeRequest> {
  return { jobId, videoId, inputUrl, source: await probeOf(inputUrl), whole: { renditions, outputUrls } };
}

/**
 * One rendition in one Encode, as the orchestrator sends a fanned-out rung: a list of one, its
 * output URLs under `<key>/`. Resolves with that rendition's result and the job's files.
 */
async function encodeOne(
  {
    rendition: spec,
    outputUrls,
    ...request
  }: {
    jobId: string;
    videoId: string;
    inputUrl: string;
    durationSeconds?: number;
    rendition: RenditionSpec;
    outputUrls: Record<string, string>;
  },
  options?: Parameters<EncodeClient['encode']>[1],
  via: EncodeClient = client,
) {
  const prefixed = Object.fromEntries(Object.entries(outputUrls).map(([name, url]) => [`${spec.key}/${name}`, url]));
  const done = await via.encode(await wholeEncode({ ...request, outputUrls: prefixed, renditions: [spec] }), options);
  assert.deepEqual(
    done.renditions.map((r) => r.key),
    [spec.key],
  );
  return { ...done.renditions[0]!, files: done.files };
}

/** Distinct non-empty lines (ffprobe lists an HLS stream twice: under its program and on its own). */
function distinctLines(text: string): string[] {
  // (A stream with side data also ends its line with a comma.)
  return [
    ...new Set(
      text
        .split('\n')
        .map((l) => l.trim().replace(/,+$/, ''))
        .filter(Boolean),
    ),
  ];
}

/** Downloads a rendition's objects into a directory, to decode them with ffmpeg. */
async function download(videoId: string, height: number): Promise<string> {
  const target = join(dir, `${videoId}-${height}p`);
  mkdirSync(target, { recursive: true });
  for (const key of await storage.list(`${objectKeys.renditionDir(videoId, height)}/`)) {
    writeFileSync(join(target, key.slice(key.lastIndexOf('/') + 1)), (await storage.get(key))!);
  }
  return target;
}

async function keyframeTimes(playlist: string): Promise<number[]> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-skip_frame',
    'nokey',
    '-show_entries',
    'frame=pts_time',
    '-of',
    'csv=p=0',
    playlist,
  ]);
  // One time per line; a frame with side data adds a trailing comma and a blank line.
  return [...stdout.matchAll(/^(-?[\d.]+)/gm)].map((m) => Math.round(Number(m[1]) * 1000) / 1000);
}

function extinfs(playlist: string): number[] {
  return [...playlist.matchAll(/#EXTINF:([\d.]+),/g)].map((m) => Number(m[1]));
}

const grpcCode = (code: GrpcStatus) => (error: unknown) => isServiceError(error) && error.code === code;

beforeAll(async () => {
  services = await startTestServices({ postgres: true, s3: true });
  dir = mkdtempSync(join(services.dir, 'work-'));
  workDir = join(dir, 'node-jobs');
  storage = new Storage(services.storage);
  db = await openDatabase(services.databaseUrl);
  await migrateToLatest(db);
  registry = await startRegistryServer({
    db,
    host: '127.0.0.1',
    port: 0,
    token,
    heartbeatTimeoutMs: 3_000,
    logger: createLogger('registry', 'silent'),
  });
  const clips: [string, Parameters<typeof makeClip>[0]][] = [
    [sources.clip, { seconds: 4, width: 640, height: 360, fps: 25, path: join(dir, 'clip.mp4') }],
    [sources.long, { seconds: 13, width: 640, height: 360, fps: 25, path: join(dir, 'long.mp4') }],
    [sources.silent, { seconds: 3, width: 320, height: 240, fps: 25, audio: false, path: join(dir, 'silent.mp4') }],
    [sources.tiny, { seconds: 2, width: 320, height: 180, fps: 25, path: join(dir, 'tiny.mp4') }],
  ];
  await Promise.all(
    clips.map(async ([key, options]) => storage.put(key, readFileSync(await makeClip(options)), 'video/mp4')),
  );
  node = await startNodeProcess({ controlPlane: registry.address, token, slots: 2, workDir });
  // The node keeps its job directories in a directory of its own process under the work dir.
  jobsDir = processWorkDir(workDir, node.process.child.pid!);
  client = createEncodeClient(node.address, token, node.nodeId);
});

afterAll(async () => {
  client?.close();
  await node?.process.stop();
  await registry?.stop();
  await db?.destroy();
  await services?.stop();
});

describe('an encode node process', () => {
  it('registers with its address and slots, and keeps heartbeating', async () => {
    const first = (await listEncodeNodes(db)).find((n) => n.id === node.nodeId);
    assert.ok(first, 'registered');
    assert.deepEqual([first.address, first.slots, first.state, first.version], [node.address, 2, 'active', '0.1.0']);
    await waitFor('a later heartbeat', async () => {
      const row = (await listEncodeNodes(db)).find((n) => n.id === node.nodeId);
      return row && row.last_heartbeat_at > first.last_heartbeat_at;
    });
  });

  it('refuses callers without the farm token (UNAUTHENTICATED)', async () => {
    const stranger = createEncodeClient(node.address, 'wrong-token', node.nodeId);
    const inputUrl = await storage.presignGet(sources.clip, 600);
    try {
      await assert.rejects(stranger.probe({ jobId: 'x', inputUrl }), grpcCode(GrpcStatus.UNAUTHENTICATED));
      await assert.rejects(
        encodeOne(
          {
            jobId: 'x',
            videoId: 'v',
            inputUrl,
            rendition: rendition(),
            outputUrls: { 'playlist.m3u8': 'http://x', 'init.mp4': 'http://x' },
          },
          {},
          stranger,
        ),
        grpcCode(GrpcStatus.UNAUTHENTICATED),
      );
      await assert.rejects(
        stranger.thumbnail({ jobId: 'x', inputUrl, outputUrl: 'http://x', timestampSeconds: 0 }),
        grpcCode(GrpcStatus.UNAUTHENTICATED),
      );
      await assert.rejects(stranger.raisePriority({ jobId: 'x' }), grpcCode(GrpcStatus.UNAUTHENTICATED));
    } finally {
      stranger.close();
    }
  });

  it('probes a source through its presigned URL', async () => {
    const result = await client.probe({ jobId: newId('job'), inputUrl: await storage.presignGet(sources.clip, 600) });
    assert.ok(Math.abs(result.durationSeconds - 4) < 0.1, `duration ${result.durationSeconds}`);
    assert.deepEqual([result.width, result.height, result.frameRate, result.frameCount], [640, 360, 25, 100]);
    assert.deepEqual(
      [result.videoCodec, result.pixelFormat, result.hasAudio, result.audioCodec],
      ['h264', 'yuv420p', true, 'aac'],
    );
    assert.equal(result.sizeBytes, (await storage.head(sources.clip))?.size);
  });

  it("an orchestrator not holding the node's connection calls it through the relay of the one that does", async () => {
    // A second orchestrator's registry and farm on the same database: the node stays connected to the first.
    const other = await startRegistryServer({
      db,
      host: '127.0.0.1',
      port: 0,
      token,
      heartbeatTimeoutMs: 3_000,
      logger: createLogger('registry', 'silent'),
    });
    const otherFarm = createNodeFarm({ db, nodeToken: token, heartbeatTimeoutMs: 3_000 });
    const stranger = createEncodeClient(other.relayAddress, token, node.nodeId);
    try {
      const picked = await otherFarm.pickNode();
      assert.deepEqual(picked, { nodeId: node.nodeId, address: registry.relayAddress });
      assert.notEqual(other.relayAddress, registry.relayAddress);
      const inputUrl = await storage.presignGet(sources.clip, 600);
      const result = await otherFarm.client(picked!).probe({ jobId: newId('job'), inputUrl });
      assert.equal(result.frameCount, 100);
      // Its own relay does not hold the node: a call there is a node lost (UNAVAILABLE, no node failure).
      await assert.rejects(
        stranger.probe({ jobId: newId('job'), inputUrl }),
        (error: unknown) => grpcCode(GrpcStatus.UNAVAILABLE)(error) && !(error instanceof NodeJobFailure),
      );
    } finally {
      stranger.close();
      await otherFarm.close();
      await other.stop();
    }
  });

  it('answers INVALID_ARGUMENT for empty, unreadable and picture-and-soundless files, NOT_FOUND for a missing one; sound alone probes as audio-only', async () => {
    await storage.put('uploads/bad/empty.mp4', new Uint8Array(0), 'video/mp4');
    await storage.put('uploads/bad/text.mp4', 'this is not a video, just some words', 'video/mp4');
    // An MP4 holding one subtitle stream: a real container with neither picture nor sound.
    writeFileSync(join(dir, 'words.srt'), '1\n00:00:00,000 --> 00:00:01,000\nhello\n');
    await run('ffmpeg', [
      '-v',
      'error',
      '-i',
      join(dir, 'words.srt'),
      '-c:s',
      'mov_text',
      '-y',
      join(dir, 'subtitles.mp4'),
    ]);
    await storage.put('uploads/bad/subtitles.mp4', readFileSync(join(dir, 'subtitles.mp4')), 'video/mp4');
    for (const [key, pattern] of [
      ['uploads/bad/empty.mp4', /./],
      ['uploads/bad/text.mp4', /not a readable video|Invalid data/],
      ['uploads/bad/subtitles.mp4', /neither a video nor an audio stream/],
    ] as const) {
      await assert.rejects(
        client.probe({ jobId: newId('job'), inputUrl: await storage.presignGet(key, 600) }),
        (error: unknown) => {
          assert.ok(isServiceError(error), String(error));
          assert.equal(error.code, GrpcStatus.INVALID_ARGUMENT, `${key}: ${error.details}`);
          assert.match(error.details, pattern);
          return true;
        },
      );
    }
    await assert.rejects(
      client.probe({ jobId: newId('job'), inputUrl: await storage.presignGet('uploads/bad/missing.mp4', 600) }),
      grpcCode(GrpcStatus.NOT_FOUND),
    );

    await run('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'sine=duration=1',
      '-c:a',
      'aac',
      '-y',
      join(dir, 'audio.mp4'),
    ]);
    await storage.put('uploads/audio/sine.mp4', readFileSync(join(dir, 'audio.mp4')), 'video/mp4');
    const sound = await client.probe({
      jobId: newId('job'),
      inputUrl: await storage.presignGet('uploads/audio/sine.mp4', 600),
    });
    assert.deepEqual(
      [sound.width, sound.height, sound.hasAudio, sound.audioCodec],
      [0, 0, true, 'aac'],
      'an audio-only source',
    );
    assert.ok(Math.abs(sound.durationSeconds - 1) < 0.1, `duration ${sound.durationSeconds}`);
  });

  it('encodes a 360p rendition to HLS fMP4 in storage, streaming progress, with every source frame', async () => {
    const videoId = newId('vid');
    const progress: EncodeProgress__Output[] = [];
    const done = await encodeOne(
      {
        jobId: newId('job'),
        videoId,
        inputUrl: await storage.presignGet(sources.clip, 600),
        outputUrls: await outputUrlsFor(videoId, 360, 4),
        durationSeconds: 4,
        rendition: rendition(),
      },
      { onProgress: (p) => progress.push(p) },
    );
    assert.ok(progress.length >= 1, 'progress events arrived');
    assert.ok(progress.every((p) => p.percent >= 0 && p.percent <= 100));
    assert.equal(progress.at(-1)?.percent, 100);

    const keys = (await storage.list(`${objectKeys.renditionDir(videoId, 360)}/`)).sort();
    assert.deepEqual(keys, [
      objectKeys.renditionInit(videoId, 360),
      objectKeys.renditionPlaylist(videoId, 360),
      objectKeys.segment(videoId, 360, 0),
    ]);
    assert.equal(
      (await storage.head(objectKeys.renditionPlaylist(videoId, 360)))?.contentType,
      'application/vnd.apple.mpegurl',
    );
    assert.equal((await storage.head(objectKeys.renditionInit(videoId, 360)))?.contentType, 'video/mp4');
    assert.equal((await storage.head(objectKeys.segment(videoId, 360, 0)))?.contentType, 'video/iso.segment');

    const playlist = (await storage.get(objectKeys.renditionPlaylist(videoId, 360)))!.toString('utf8');
    // A 4 s video is one 4 s segment (the 13 s test below shows the 6 s segmentation).
    assert.match(playlist, /#EXT-X-TARGETDURATION:4\n/);
    assert.match(playlist, /#EXT-X-PLAYLIST-TYPE:VOD/);
    assert.match(playlist, /#EXT-X-MAP:URI="init.mp4"/);
    assert.match(playlist, /#EXT-X-ENDLIST/);
    assert.deepEqual(extinfs(playlist), [4]);

    const local = await download(videoId, 360);
    const frames = await countDecodedFrames(join(local, 'playlist.m3u8'));
    assert.equal(frames, 100, 'decodes every source frame');
    assert.equal(done.frameCount, 100);
    assert.deepEqual([done.width, done.height, done.segmentCount, done.durationSeconds], [640, 360, 1, 4]);
    assert.match(done.codecs, /^avc1\.64[0-9a-f]{4},mp4a\.40\.2$/);
    assert.deepEqual([done.pixelFormat, done.audioFormat], ['yuv420p', 'aac']);
    const segmentBits = readFileSync(join(local, 'seg-00000.m4s')).length * 8;
    assert.equal(done.averageBandwidth, Math.ceil(segmentBits / 4));
    assert.ok(done.peakBandwidth >= done.averageBandwidth);
    assert.deepEqual([...done.files].sort(), ['360p/init.mp4', '360p/playlist.m3u8', '360p/seg-00000.m4s']);
    assert.equal(readdirSync(jobsDir).length, 0, 'the job directory is gone');
  });

  it('lines two renditions up: same 6 s segments, keyframes on the same instants, all frames', async () => {
    const videoId = newId('vid');
    const inputUrl = await storage.presignGet(sources.long, 600);
    // One two-pass VBR, one single-pass CBR: segment boundaries must not depend on rate control.
    const [high, low] = await Promise.all([
      encodeOne({
        jobId: newId('job'),
        videoId,
        inputUrl,
        outputUrls: await outputUrlsFor(videoId, 360, 13),
        durationSeconds: 13,
        rendition: rendition({ twoPass: true }),
      }),
      encodeOne({
        jobId: newId('job'),
        videoId,
        inputUrl,
        outputUrls: await outputUrlsFor(videoId, 240, 13),
        durationSeconds: 13,
        rendition: rendition({
          key: '240p',
          width: 426,
          height: 240,
          videoBitrateKbps: 400,
          rateControlMode: 'constantBitrate',
        }),
      }),
    ]);
    const playlists = await Promise.all(
      [360, 240].map(async (h) => (await storage.get(objectKeys.renditionPlaylist(videoId, h)))!.toString('utf8')),
    );
    for (const playlist of playlists) {
      assert.match(playlist, /#EXT-X-TARGETDURATION:6\n/);
      assert.deepEqual(extinfs(playlist), [6, 6, 1]);
    }
    assert.deepEqual([high.segmentCount, low.segmentCount], [3, 3]);
    assert.deepEqual([low.width, low.height], [426, 240]);
    const [dir360, dir240] = [await download(videoId, 360), await download(videoId, 240)];
    const [keys360, keys240] = [
      await keyframeTimes(join(dir360, 'playlist.m3u8')),
      await keyframeTimes(join(dir240, 'playlist.m3u8')),
    ];
    assert.deepEqual(keys360, keys240);
    for (const boundary of [0, 6, 12])
      assert.ok(keys360.includes(boundary), `keyframe at ${boundary} s: ${keys360.join(', ')}`);
    assert.deepEqual(keys360, [0, 2, 4, 6, 8, 10, 12], 'a 2 s GOP, no scene-cut keyframes');
    assert.equal(await countDecodedFrames(join(dir360, 'playlist.m3u8')), 325);
    assert.equal(await countDecodedFrames(join(dir240, 'playlist.m3u8')), 325);
  });

  it('makes several renditions from one decode (one Encode, `<key>/<file>` URLs): each has every frame, segments and keyframes line up', async () => {
    for (const twoPass of [false, true]) {
      const videoId = newId('vid');
      const specs = [
        rendition({ key: '360p', twoPass }),
        rendition({
          key: '240p',
          width: 426,
          height: 240,
          videoBitrateKbps: 400,
          twoPass,
          rateControlMode: twoPass ? 'variableBitrate' : 'constantBitrate',
        }),
        rendition({ key: '180p', width: 320, height: 180, videoBitrateKbps: 200, twoPass }),
      ];
      const outputUrls: Record<string, string> = {};
      for (const [key, height] of [
        ['360p', 360],
        ['240p', 240],
        ['180p', 180],
      ] as const) {
        for (const [name, url] of Object.entries(await outputUrlsFor(videoId, height, 13)))
          outputUrls[`${key}/${name}`] = url;
      }
      const progress: EncodeProgress__Output[] = [];
      const done = await client.encode(
        await wholeEncode({
          jobId: newId('job'),
          videoId,
          inputUrl: await storage.presignGet(sources.long, 600),
          outputUrls,
          durationSeconds: 13,
          renditions: specs,
        }),
        { onProgress: (p) => progress.push(p) },
      );
      assert.equal(progress.at(-1)?.percent, 100, `two-pass ${twoPass}: progress reaches 100`);
      assert.ok(
        progress.every((p, i) => i === 0 || p.percent >= progress[i - 1]!.percent),
        'progress never goes back',
      );
      assert.deepEqual(
        done.renditions.map((r) => r.key),
        ['360p', '240p', '180p'],
      );
      let reference: number[] | undefined;
      for (const [index, height] of [360, 240, 180].entries()) {
        const result = done.renditions[index]!;
        assert.deepEqual(
          [result.width, result.height, result.segmentCount, result.durationSeconds],
          [specs[index]!.width, height, 3, 13],
        );
        assert.equal(result.frameCount, 325);
        assert.match(result.codecs, /^avc1\.64[0-9a-f]{4},mp4a\.40\.2$/);
        assert.deepEqual([result.pixelFormat, result.audioFormat], ['yuv420p', 'aac']);
        assert.ok(result.averageBandwidth > 0 && result.peakBandwidth >= result.averageBandwidth);
        const playlist = (await storage.get(objectKeys.renditionPlaylist(videoId, height)))!.toString('utf8');
        assert.match(playlist, /#EXT-X-MAP:URI="init.mp4"/);
        assert.deepEqual(extinfs(playlist), [6, 6, 1], `${height}p: aligned 6 s segments`);
        const local = await download(videoId, height);
        assert.equal(
          await countDecodedFrames(join(local, 'playlist.m3u8')),
          325,
          `${height}p (two-pass ${twoPass}): decodes every source frame`,
        );
        const keyframes = await keyframeTimes(join(local, 'playlist.m3u8'));
        reference ??= keyframes;
        assert.deepEqual(keyframes, reference, `${height}p: keyframes on the same instants`);
      }
      assert.deepEqual(reference, [0, 2, 4, 6, 8, 10, 12]);
      assert.ok(done.files.includes('240p/seg-00002.m4s'));
      assert.equal(readdirSync(jobsDir).length, 0, 'the job directory is gone');
    }
  });

  it('makes a playable output with each audio codec (aac-he is written as AAC-LC)', async () => {
    const expected = {
      aac: ['mp4a.40.2', 'aac'],
      mp3: ['mp4a.40.34', 'mp3'],
      ac3: ['ac-3', 'ac3'],
      eac3: ['ec-3', 'eac3'],
      'aac-he': ['mp4a.40.2', 'aac'],
    } as const;
    const inputUrl = await storage.presignGet(sources.tiny, 600);
    for (const [audioCodec, [codec, format]] of Object.entries(expected)) {
      const videoId = newId('vid');
      const done = await encodeOne({
        jobId: newId('job'),
        videoId,
        inputUrl,
        outputUrls: await outputUrlsFor(videoId, 180, 2),
        durationSeconds: 2,
        rendition: rendition({
          key: '180p',
          width: 320,
          height: 180,
          videoBitrateKbps: 200,
          audioBitrateKbps: 96,
          audioCodec,
        }),
      });
      assert.equal(done.codecs.split(',')[1], codec, audioCodec);
      assert.equal(done.audioFormat, format, audioCodec);
      const local = await download(videoId, 180);
      assert.equal(await countDecodedFrames(join(local, 'playlist.m3u8')), 50, `${audioCodec}: video decodes`);
      const { stderr } = await run('ffmpeg', [
        '-v',
        'error',
        '-xerror',
        '-i',
        join(local, 'playlist.m3u8'),
        '-map',
        '0:a:0',
        '-f',
        'null',
        '-',
      ]);
      assert.equal(stderr.trim(), '', `${audioCodec}: audio decodes`);
      const { stdout } = await run('ffprobe', [
        '-v',
        'error',
        '-select_streams',
        'a:0',
        '-show_entries',
        'stream=codec_name',
        '-of',
        'csv=p=0',
        join(local, 'playlist.m3u8'),
      ]);
      assert.deepEqual(distinctLines(stdout), [
        { aac: 'aac', mp3: 'mp3', ac3: 'ac3', eac3: 'eac3', 'aac-he': 'aac' }[audioCodec],
      ]);
    }
  });

  it('writes no audio track for a silent source, and 10-bit when asked', async () => {
    const videoId = newId('vid');
    const done = await encodeOne({
      jobId: newId('job'),
      videoId,
      inputUrl: await storage.presignGet(sources.silent, 600),
      outputUrls: await outputUrlsFor(videoId, 240, 3),
      durationSeconds: 3,
      rendition: rendition({ key: '240p', width: 320, height: 240, pixelFormat: 'yuv420p10b' }),
    });
    assert.match(done.codecs, /^avc1\.6e[0-9a-f]{4}$/, 'High 10, video only');
    assert.deepEqual([done.audioFormat, done.pixelFormat], ['', 'yuv420p10b']);
    const local = await download(videoId, 240);
    assert.equal(await countDecodedFrames(join(local, 'playlist.m3u8')), 75);
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'stream=codec_type,pix_fmt',
      '-of',
      'csv=p=0',
      join(local, 'playlist.m3u8'),
    ]);
    assert.deepEqual(distinctLines(stdout), ['video,yuv420p10le']);
  });

  it('grabs a thumbnail of the requested size into storage', async () => {
    const key = objectKeys.thumbnail(newId('vid'), 'default.jpg');
    const result = await client.thumbnail({
      jobId: newId('job'),
      inputUrl: await storage.presignGet(sources.clip, 600),
      outputUrl: await storage.presignPut(key, 600, 'image/jpeg'),
      timestampSeconds: 1.5,
      width: 160,
      height: 90,
    });
    assert.deepEqual([result.width, result.height], [160, 90]);
    const object = await storage.head(key);
    assert.deepEqual([object?.size, object?.contentType], [result.bytes, 'image/jpeg']);
    await assert.rejects(
      client.thumbnail({
        jobId: newId('job'),
        inputUrl: await storage.presignGet(sources.clip, 600),
        outputUrl: await storage.presignPut(key, 600, 'image/jpeg'),
        timestampSeconds: 60,
      }),
      grpcCode(GrpcStatus.OUT_OF_RANGE),
    );
  });

  it('refuses a third encode while both slots run (RESOURCE_EXHAUSTED), stops ffmpeg when a caller cancels', async () => {
    const videoId = newId('vid');
    const inputUrl = await storage.presignGet(sources.long, 600);
    const slow = rendition({ twoPass: true, x264Preset: 'medium' });
    const started: string[] = [];
    const cancel = new AbortController();
    const first = encodeOne(
      {
        jobId: 'slot-1',
        videoId,
        inputUrl,
        outputUrls: await outputUrlsFor(videoId, 360, 13),
        durationSeconds: 13,
        rendition: slow,
      },
      { onProgress: () => started.push('slot-1') },
    );
    const second = encodeOne(
      {
        jobId: 'slot-2',
        videoId,
        inputUrl,
        outputUrls: await outputUrlsFor(videoId, 361, 13),
        durationSeconds: 13,
        rendition: slow,
      },
      { signal: cancel.signal, onProgress: () => started.push('slot-2') },
    );
    const secondOutcome = second.then(
      () => 'finished',
      (error: unknown) => error,
    );
    await waitFor('both encodes to run', () => started.includes('slot-1') && started.includes('slot-2'));
    // A running encode can be raised (someone waits for it now); a job the node does not run cannot.
    assert.deepEqual(await client.raisePriority({ jobId: 'slot-1' }), { running: true });
    assert.deepEqual(await client.raisePriority({ jobId: 'slot-9' }), { running: false });
    await assert.rejects(
      encodeOne({
        jobId: 'slot-3',
        videoId,
        inputUrl,
        outputUrls: await outputUrlsFor(videoId, 362, 13),
        durationSeconds: 13,
        rendition: slow,
      }),
      grpcCode(GrpcStatus.RESOURCE_EXHAUSTED),
    );
    cancel.abort();
    const outcome = await secondOutcome;
    assert.ok(isServiceError(outcome) && outcome.code === GrpcStatus.CANCELLED, String(outcome));
    // The cancelled encode's slot frees at once: a new encode is accepted while the first still runs.
    await waitFor('the cancelled job to leave the node', () => readdirSync(jobsDir).length === 1);
    const third = await encodeOne({
      jobId: 'slot-3b',
      videoId,
      inputUrl: await storage.presignGet(sources.tiny, 600),
      outputUrls: await outputUrlsFor(videoId, 180, 2),
      durationSeconds: 2,
      rendition: rendition({ key: '180p', width: 320, height: 180 }),
    });
    assert.equal(third.frameCount, 50);
    await first;
    assert.ok(/encode cancelled by the caller/.test(node.logs()));
    assert.equal(readdirSync(jobsDir).length, 0);
  });

  it('resumes a source read that storage cuts off midway: every frame is still there', async () => {
    // A flaky storage front: the first two long reads are cut after 150 kB. Without ffmpeg's
    // reconnect, that reads as the end of the file and makes a truncated video with exit code 0.
    // (With the index up front, as uploads from most tools have it, ffmpeg reads straight through.)
    const faststart = join(dir, 'long-faststart.mp4');
    await run('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-i',
      join(dir, 'long.mp4'),
      '-c',
      'copy',
      '-movflags',
      '+faststart',
      faststart,
    ]);
    const data = readFileSync(faststart);
    let cut = 0;
    const flaky = createServer((req, res) => {
      const range = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? '');
      const start = range ? Number(range[1]) : 0;
      const end = range?.[2] ? Number(range[2]) : data.length - 1;
      res.writeHead(range ? 206 : 200, {
        'content-range': `bytes ${start}-${end}/${data.length}`,
        'content-length': end - start + 1,
        'accept-ranges': 'bytes',
      });
      if (cut < 2 && end - start > 200_000) {
        cut++;
        res.write(data.subarray(start, start + 150_000), () => res.socket?.destroy());
        return;
      }
      res.end(data.subarray(start, end + 1));
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    try {
      const address = flaky.address();
      const inputUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/long.mp4`;
      const videoId = newId('vid');
      const done = await encodeOne({
        jobId: newId('job'),
        videoId,
        inputUrl,
        outputUrls: await outputUrlsFor(videoId, 240, 13),
        durationSeconds: 13,
        rendition: rendition({ key: '240p', width: 426, height: 240, x264Preset: 'ultrafast' }),
      });
      assert.ok(cut >= 1, 'the connection was cut');
      assert.equal(done.frameCount, 325);
      assert.equal(await countDecodedFrames(join(await download(videoId, 240), 'playlist.m3u8')), 325);
    } finally {
      flaky.close();
    }
  });

  it('fails an encode whose outputs have no presigned URL, without leaving files behind', async () => {
    const videoId = newId('vid');
    const urls = await outputUrlsFor(videoId, 360, 13);
    delete urls['seg-00002.m4s']; // (encodeOne puts it under 360p/)
    await assert.rejects(
      encodeOne({
        jobId: newId('job'),
        videoId,
        inputUrl: await storage.presignGet(sources.long, 600),
        outputUrls: urls,
        durationSeconds: 13,
        rendition: rendition(),
      }),
      (error: unknown) =>
        isServiceError(error) && error.code === GrpcStatus.INVALID_ARGUMENT && /seg-00002\.m4s/.test(error.details),
    );
    assert.ok(
      !(await storage.list(`${objectKeys.renditionDir(videoId, 360)}/`)).includes(
        objectKeys.renditionPlaylist(videoId, 360),
      ),
      'no playlist',
    );
    assert.equal(readdirSync(jobsDir).length, 0);
  });

  it('answers STORAGE_UNAVAILABLE when storage is unreachable for its uploads, and the orchestrator does not mark it lost', async () => {
    // Storage is down for the node's uploads (a port nothing listens on); the node itself is fine.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const storageDown: Storage = Object.create(storage, {
      presignPut: {
        value: async (key: string, seconds: number, contentType?: string) => {
          const url = new URL(await storage.presignPut(key, seconds, contentType));
          url.host = `127.0.0.1:${deadPort}`;
          return url.toString();
        },
      },
    });
    const videoId = newId('vid');
    const inputUrl = await storage.presignGet(sources.tiny, 600);
    const spec = rendition({ key: '180p', width: 320, height: 180, videoBitrateKbps: 200, x264Preset: 'ultrafast' });

    // The node's answer: a typed reason, whatever the status text says.
    const outputUrls: Record<string, string> = {};
    for (const name of hlsOutputFileNames(2))
      outputUrls[name] = await storageDown.presignPut(
        `${objectKeys.renditionDir(videoId, 180)}/${name}`,
        600,
        contentTypeForHlsFile(name),
      );
    await assert.rejects(
      encodeOne({ jobId: newId('job'), videoId, inputUrl, outputUrls, durationSeconds: 2, rendition: spec }),
      (error: unknown) => {
        assert.ok(error instanceof NodeJobFailure, String(error));
        assert.equal(error.reason, 'STORAGE_UNAVAILABLE', error.details);
        return true;
      },
    );

    // The orchestrator's encode activity on the same node: retryable StorageUnavailable, the node stays live.
    const farm = createNodeFarm({ db, nodeToken: token, heartbeatTimeoutMs: 3_000 });
    try {
      const activities = createNodeActivities({
        storage: storageDown,
        farm,
        logger: createLogger('orchestrator', 'silent'),
      });
      const [plan] = planLadder(
        'standard',
        { width: 320, height: 180, frameRate: 25, hasAudio: true },
        {
          maxEdgeLength: -1,
          maxFrameRate: -1,
          pixelFormat: 'yuv420p',
          rateControlMode: 'variableBitrate',
          twoPassVBREncoding: false,
          compressionRatio: 'ultrafast',
          audioCodec: 'aac',
        },
      );
      const env = new MockActivityEnvironment(
        {
          startToCloseTimeoutMs: 600_000,
          activityId: '1',
          workflowExecution: { workflowId: `video:${videoId}`, runId: 'storage-down' },
        },
        { logger: new DefaultLogger('ERROR', () => {}) },
      );
      const failure = await env
        .run(activities.encodeRenditions, {
          videoId,
          storagePath: sources.tiny,
          renditions: [plan!],
          durationSeconds: 2,
          probe: await probeOf(await storage.presignGet(sources.tiny, 600)),
        })
        .then(
          () => assert.fail('the encode should fail'),
          (error: unknown) => error,
        );
      assert.ok(failure instanceof ApplicationFailure, String(failure));
      assert.equal(failure.type, 'StorageUnavailable', failure.message);
      assert.equal(failure.nonRetryable, false);
      const row = (await listEncodeNodes(db)).find((n) => n.id === node.nodeId);
      assert.equal(row?.state, 'active', 'the node is not marked lost');
      assert.equal(await farm.hasLiveNode({ freeSlot: true }), true, 'and keeps getting work');
    } finally {
      await farm.close();
    }
    assert.equal(readdirSync(jobsDir).length, 0);
  });
});
