// Audio on the real farm (API, Temporal, orchestrator, an encode node, delivery): a source with no
// video stream becomes an audio-only video (one AAC rendition, no thumbnail) whose HLS decodes to
// the source's duration and plays to its end in hls.js in Chromium; every video with sound gets
// `audio.m4a` (AAC in MP4, moov first) in the public, private and direct families with the token
// rules of MP4 downloads, which decodes to the video's duration; a silent video's is 404.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { makeClip } from '@kino/test/support/media';
import { launchChromium, playThrough, startPageHost, type PageHost } from '@kino/test/support/players';
import type { FarmTenant } from '../farm/farm.ts';
import { joinSharedFarm } from '../farm/shared-farm.ts';

const run = promisify(execFile);

let farm: FarmTenant;
let workDir: string;
let browser: Browser;
let host: PageHost;
let deliveryUrl: string;
/** song: AAC audio only, public (remuxed); opus: Opus audio only in WebM, private (encoded); clip: picture and sound, private; silent: picture only, public. */
const videos: Record<'song' | 'opus' | 'clip' | 'silent', string> = { song: '', opus: '', clip: '', silent: '' };
const songSeconds = 8;
const clipSeconds = 4;

/** A sound with no picture: a tone, in the container the extension names. */
async function makeSong(path: string, seconds: number): Promise<string> {
  const codec = path.endsWith('.webm') ? ['-c:a', 'libopus', '-b:a', '96k'] : ['-c:a', 'aac', '-b:a', '96k'];
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:sample_rate=48000:duration=${seconds}`,
    ...codec,
    path,
  ]);
  return path;
}

async function upload(
  path: string,
  contentType: 'video/mp4' | 'video/webm',
  allowPublicAccess: boolean,
): Promise<string> {
  const body = await readFile(path);
  const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, {
    filename: path.split('/').at(-1)!,
    fileSize: body.length,
    contentType,
  });
  await farm.kino.uploads.putFile(ticket, body, contentType);
  const { videoID } = await farm.kino.videos.process(farm.orgId, farm.envId, {
    storagePath: ticket.bucketPath,
    videoQuality: 'standard',
    allowPublicAccess,
    compressionRatio: 'ultrafast',
  });
  return videoID;
}

/** Decodes every audio frame of `input` (a file or a playlist URL): errors throw; answers the decoded seconds. */
async function decodedAudioSeconds(input: string): Promise<number> {
  const { stdout, stderr } = await run(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostats',
      '-v',
      'error',
      '-xerror',
      '-i',
      input,
      '-map',
      '0:a:0',
      '-c:a',
      'pcm_s16le',
      '-ar',
      '48000',
      '-ac',
      '1',
      '-f',
      's16le',
      '-',
    ],
    { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 },
  );
  if (stderr.toString().trim()) throw new Error(`ffmpeg reported errors decoding ${input}:\n${stderr.toString()}`);
  return stdout.length / 2 / 48000;
}

async function probeOf(
  input: string,
): Promise<{ duration: number; streams: Array<{ codec_type: string; codec_name: string }> }> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration:stream=codec_type,codec_name',
    '-of',
    'json',
    input,
  ]);
  const json = JSON.parse(stdout) as {
    format: { duration: string };
    streams: Array<{ codec_type: string; codec_name: string }>;
  };
  return { duration: Number(json.format.duration), streams: json.streams };
}

/** Checks an audio.m4a body: AAC alone in MP4, moov before mdat, the video's duration, every frame decodes. */
async function assertAudioFile(url: string, seconds: number): Promise<void> {
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  assert.equal(response.headers.get('content-type'), 'audio/mp4');
  assert.match(response.headers.get('content-disposition') ?? '', /^attachment; filename="[A-Za-z0-9_-]+-audio\.m4a"$/);
  const bytes = Buffer.from(await response.arrayBuffer());
  const moov = bytes.indexOf('moov');
  const mdat = bytes.indexOf('mdat');
  assert.ok(moov > 0 && mdat > 0 && moov < mdat, `moov (${moov}) before mdat (${mdat}): faststart`);
  const file = join(workDir, `audio-${Date.now()}-${Math.random().toString(36).slice(2)}.m4a`);
  await writeFile(file, bytes);
  const probe = await probeOf(file);
  assert.deepEqual(probe.streams, [{ codec_type: 'audio', codec_name: 'aac' }], 'AAC alone');
  assert.ok(Math.abs(probe.duration - seconds) < 0.1, `${url}: ${probe.duration} s of ${seconds}`);
  const decoded = await decodedAudioSeconds(file);
  assert.ok(Math.abs(decoded - seconds) < 0.1, `${url}: ${decoded} s decoded of ${seconds}`);
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-audio-'));
  let paths: string[];
  [farm, paths, browser, host] = await Promise.all([
    joinSharedFarm('audio'),
    Promise.all([
      makeSong(join(workDir, 'song.mp4'), songSeconds),
      makeSong(join(workDir, 'opus.webm'), songSeconds),
      makeClip({
        seconds: clipSeconds,
        width: 320,
        height: 180,
        fps: 25,
        audio: true,
        path: join(workDir, 'clip.mp4'),
      }),
      makeClip({
        seconds: clipSeconds,
        width: 320,
        height: 180,
        fps: 25,
        audio: false,
        path: join(workDir, 'silent.mp4'),
      }),
    ]),
    launchChromium(),
    startPageHost(),
  ]);
  deliveryUrl = farm.deliveryUrl!;
  const [song, opus, clip, silent] = paths;
  videos.song = await upload(song!, 'video/mp4', true);
  videos.opus = await upload(opus!, 'video/webm', false);
  videos.clip = await upload(clip!, 'video/mp4', false);
  videos.silent = await upload(silent!, 'video/mp4', true);
  await Promise.all(Object.values(videos).map((id) => farm.waitForStatus(id, 'ready', 240_000)));
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await farm?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('an audio-only source', () => {
  test('is an audio-only video: one encoding of short edge 0 with the audio fields, no thumbnail or storyboard, audioUrl', async () => {
    const details = await farm.kino.videos.get(farm.orgId, videos.song);
    assert.equal(details.encodings.length, 1);
    const [encoding] = details.encodings;
    assert.deepEqual(
      [
        encoding!.key,
        encoding!.shortEdgePixels,
        encoding!.videoStreamBitrate,
        encoding!.audioStreamBitrate,
        encoding!.audioFormat,
        encoding!.maxFrameRate,
      ],
      ['0p', 0, 0, 128, 'aac', 0],
    );
    assert.ok(Math.abs(details.durationSeconds - songSeconds) < 0.1, `${details.durationSeconds} s`);
    assert.equal(details.thumbnailUrl, null);
    assert.equal(details.storyboardUrl, undefined);
    assert.equal(details.audioUrl, `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videos.song}/audio.m4a`);
  });

  test('its HLS is one AAC variant (no RESOLUTION or FRAME-RATE) that decodes to the source duration', async () => {
    const master = `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videos.song}/master.m3u8`;
    const text = await (await fetch(master)).text();
    const variants = text.split('\n').filter((line) => line.startsWith('#EXT-X-STREAM-INF:'));
    assert.equal(variants.length, 1, text);
    assert.match(variants[0]!, /BANDWIDTH=\d+,AVERAGE-BANDWIDTH=\d+,CODECS="mp4a\.40\.2"$/);
    assert.doesNotMatch(variants[0]!, /RESOLUTION|FRAME-RATE/);
    const probe = await probeOf(master);
    assert.deepEqual(
      probe.streams.map((s) => [s.codec_type, s.codec_name]),
      [['audio', 'aac']],
    );
    const decoded = await decodedAudioSeconds(master);
    assert.ok(Math.abs(decoded - songSeconds) < 0.1, `${decoded} s decoded of ${songSeconds}`);
    // The direct family's names for the same rendition.
    assert.ok(Math.abs((await decodedAudioSeconds(`${deliveryUrl}/${videos.song}/master.m3u8`)) - songSeconds) < 0.1);
  });

  test('plays to its end in hls.js in Chromium', async () => {
    const outcome = await playThrough(browser, host, {
      player: 'hls.js',
      src: `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videos.song}/master.m3u8`,
      rate: 4,
      timeoutMs: 60_000,
    });
    assert.deepEqual(
      outcome.errors.filter((e) => e.endsWith('(fatal)')),
      [],
      outcome.errors.join('; '),
    );
    assert.equal(outcome.ended, true, `stalled at ${outcome.currentTime} s of ${outcome.duration}`);
    assert.ok(Math.abs(outcome.duration - songSeconds) < 0.2, `duration ${outcome.duration}`);
    assert.equal(outcome.frames, 0, 'no picture');
  });

  test('a private audio-only WebM (Opus) source: its AAC rendition decodes and its audio.m4a is AAC, with a token only', async () => {
    const details = await farm.kino.videos.get(farm.orgId, videos.opus);
    assert.deepEqual(
      details.encodings.map((e) => [e.key, e.audioFormat]),
      [['0p', 'aac']],
    );
    assert.ok(
      details.audioUrl?.startsWith(`${deliveryUrl}/v1/private/${videos.opus}/audio.m4a?token=`),
      details.audioUrl,
    );
    await assertAudioFile(details.audioUrl!, details.durationSeconds);
  });
});

describe('audio.m4a', () => {
  test('of a public audio-only video: in the public and direct families without a token', async () => {
    const details = await farm.kino.videos.get(farm.orgId, videos.song);
    for (const url of [details.audioUrl!, `${deliveryUrl}/${videos.song}/audio.m4a`])
      await assertAudioFile(url, details.durationSeconds);
    const head = await fetch(details.audioUrl!, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.ok(Number(head.headers.get('content-length')) > 0);
  });

  test('of a private video with picture and sound: the token rules of MP4 downloads (401 without, 403 for another video, 200 with)', async () => {
    const details = await farm.kino.videos.get(farm.orgId, videos.clip);
    assert.ok(
      details.audioUrl?.startsWith(`${deliveryUrl}/v1/private/${videos.clip}/audio.m4a?token=`),
      details.audioUrl,
    );
    await assertAudioFile(details.audioUrl!, details.durationSeconds);
    const token = new URL(details.audioUrl!).searchParams.get('token')!;
    const otherToken = new URL((await farm.kino.videos.get(farm.orgId, videos.opus)).audioUrl!).searchParams.get(
      'token',
    )!;
    for (const path of [
      `/v1/private/${videos.clip}/audio.m4a`,
      `/v1/public/${farm.orgId}/${farm.envId}/${videos.clip}/audio.m4a`,
      `/${videos.clip}/audio.m4a`,
    ]) {
      for (const [query, status] of [
        ['', 401],
        [`?token=${otherToken}`, 403],
        [`?token=${token}`, 200],
      ] as const) {
        const response = await fetch(`${deliveryUrl}${path}${query}`, { method: 'HEAD' });
        assert.equal(response.status, status, `${path}${query.slice(0, 8)}`);
        // As for the rendition's MP4 download at the same place.
        const mp4 = path.replace('audio.m4a', path.startsWith('/v1') ? 'video-180p.mp4' : '180p.mp4');
        assert.equal(
          (await fetch(`${deliveryUrl}${mp4}${query}`, { method: 'HEAD' })).status,
          status,
          `${mp4}${query.slice(0, 8)}`,
        );
      }
    }
  });

  test('of a silent video: 404 audio_not_found, and no audioUrl in its details', async () => {
    const details = await farm.kino.videos.get(farm.orgId, videos.silent);
    assert.equal(details.audioUrl, undefined);
    for (const url of [
      `${deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videos.silent}/audio.m4a`,
      `${deliveryUrl}/${videos.silent}/audio.m4a`,
    ]) {
      const response = await fetch(url);
      assert.equal(response.status, 404, url);
      const body = (await response.json()) as { code: string; status: number; detail: string };
      assert.deepEqual([body.status, body.code], [404, 'audio_not_found']);
      assert.match(body.detail, /no sound/);
    }
  });
});
