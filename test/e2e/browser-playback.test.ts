// Proof in a real browser that Kino's own output plays: a clip uploaded through the SDK is
// transcoded by the real farm (API, Temporal, orchestrator, an encode node) and Debian's Chromium
// (headless, through playwright-core) plays it with hls.js from the delivery node, a public video
// and a private one through its signed URL (bound to the page's domain), each to its `ended` event
// with no hls.js error, for the source's duration, after loading segments at every rendition (the
// page forces each level in turn). The page is served from another origin than delivery, so CORS is
// exercised as a site would use it.
//
// Then videos a few frames past a multiple of 6 s (#36), encoded whole and in chunks, each played to
// its `ended` event with hls.js and with Shaka Player (both from npm), for its picture's duration and
// every one of its frames. Their sound ends 0.15 s before their picture, as recordings often do: a
// last segment of a few frames then holds no audio at all, and hls.js stalled before the end for
// ever (bufferStalledError). Kino folds a tail shorter than hlsMinimumLastSegmentSeconds into the
// segment before it: each rendition's segments are checked frame by frame, its target duration
// stays 6 s, and its BANDWIDTH bounds every whole segment's bit rate without a short tail driving it.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { hlsMinimumLastSegmentSeconds, hlsSegmentSeconds } from '@kino/proto/contract';
import { countFramesInFile, makeClip } from '@kino/test/support/media';
import { launchChromium, playThrough, startPageHost, webPlayers, type PageHost } from '@kino/test/support/players';
import { startFarm, type Farm } from '../farm/farm.ts';

// The player page: plays `?src=` to the end, fast, and leaves the outcome on window.playback.
const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>Kino playback</title><script src="/hls.min.js"></script></head>
<body><video id="v" muted playsinline></video>
<script>
  const outcome = { ended: false, errors: [], levels: 0, fragments: 0, levelsPlayed: [], currentTime: 0, duration: 0, frames: 0 };
  window.playback = outcome;
  const video = document.getElementById('v');
  const src = new URLSearchParams(location.search).get('src');
  if (!Hls.isSupported()) outcome.errors.push('hls.js is not supported in this browser');
  const hls = new Hls({ enableWorker: true });
  hls.on(Hls.Events.ERROR, (_event, data) => outcome.errors.push(data.type + '/' + data.details + (data.fatal ? ' (fatal)' : '')));
  hls.on(Hls.Events.MANIFEST_PARSED, (_event, data) => {
    outcome.levels = data.levels.length;
    // Each rendition in turn, from the first: level 0 now, the next one after each fragment.
    hls.currentLevel = 0;
    // Faster than real time, not so fast that a loaded machine stalls the buffer between renditions.
    video.playbackRate = 2;
    video.play().catch((error) => outcome.errors.push('play(): ' + error.message));
  });
  hls.on(Hls.Events.FRAG_LOADED, (_event, data) => {
    outcome.fragments++;
    if (!outcome.levelsPlayed.includes(data.frag.level)) outcome.levelsPlayed.push(data.frag.level);
    const next = outcome.levelsPlayed.length;
    if (next < outcome.levels) hls.nextLevel = next;
  });
  video.addEventListener('ended', () => {
    outcome.currentTime = video.currentTime;
    outcome.duration = video.duration;
    outcome.frames = video.getVideoPlaybackQuality().totalVideoFrames;
    outcome.ended = true;
  });
  video.addEventListener('error', () => outcome.errors.push('video element: ' + (video.error && video.error.message)));
  hls.loadSource(src);
  hls.attachMedia(video);
</script></body></html>`;

interface Outcome {
  ended: boolean;
  errors: string[];
  levels: number;
  fragments: number;
  /** The levels (renditions) hls.js loaded a fragment of, in order. */
  levelsPlayed: number[];
  currentTime: number;
  duration: number;
  frames: number;
}

const run = promisify(execFile);

/** A source: its picture's frames, and the frames of each segment Kino must make of it. */
interface Source {
  name: string;
  frames: number;
  fps: number;
  segments: number[];
}

const ntsc = 30000 / 1001;
/** Encoded whole (the default chunk length, 30 s, is longer than any of them). */
const wholeSources: Source[] = [
  { name: '6 s + 1 frame', frames: 145, fps: 24, segments: [145] },
  { name: '6 s + 2 frames', frames: 146, fps: 24, segments: [146] },
  { name: '6 s + 3 frames', frames: 147, fps: 24, segments: [147] },
  { name: '6 s + 11 frames, the longest tail folded', frames: 155, fps: 24, segments: [155] },
  { name: '6 s + 12 frames, a last segment of the minimum', frames: 156, fps: 24, segments: [144, 12] },
  { name: '12 s + 1 frame', frames: 289, fps: 24, segments: [144, 145] },
  // The cut at 6 s lands on the frame at 6.006 s.
  { name: '6 s + 1 frame at 29.97 fps', frames: 181, fps: ntsc, segments: [181] },
];
/** Encoded in 6 s chunks: the last chunk runs from 6 s (12 s) to the end, one segment and the tail. */
const chunkedSources: (Source & { chunks: number })[] = [
  { name: '12 s + 1 frame', frames: 289, fps: 24, segments: [144, 145], chunks: 2 },
  { name: '12 s + 2 frames', frames: 290, fps: 24, segments: [144, 146], chunks: 2 },
  { name: '12 s + 3 frames', frames: 291, fps: 24, segments: [144, 147], chunks: 2 },
  { name: '12 s + 12 frames, a last segment of the minimum', frames: 300, fps: 24, segments: [144, 144, 12], chunks: 2 },
  { name: '18 s + 1 frame', frames: 433, fps: 24, segments: [144, 144, 145], chunks: 3 },
];
const chunkSeconds = 6;
/** The sound stops this long before the picture. */
const audioShortBy = 0.15;
/** Faster than real time; a short video still plays for seconds. */
const rate = 8;
/** An AAC frame at 48 kHz: the sound's last frame may reach this far past its own end. */
const aacFrameSeconds = 1024 / 48_000;

let farm: Farm;
let workDir: string;
let pageHost: PageHost;
let browser: Browser;
/** The source's duration (ffprobe), which playback must last. */
let sourceSeconds: number;
let publicVideoId: string;
let privateVideoId: string;
/** Each source's clip file. */
const clips = new Map<Source, string>();

/** Upload through the SDK, process on `standard` (360p and 480p), wait for `ready`. */
async function transcode(clip: Buffer, allowPublicAccess: boolean): Promise<string> {
  const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, { filename: 'clip.mp4', fileSize: clip.length, contentType: 'video/mp4' });
  await farm.kino.uploads.putFile(ticket, clip, 'video/mp4');
  const { videoID } = await farm.kino.videos.process(farm.orgId, farm.envId, {
    storagePath: ticket.bucketPath,
    videoQuality: 'standard',
    allowPublicAccess,
    compressionRatio: 'ultrafast',
  });
  await farm.waitForStatus(videoID, 'ready', 240_000);
  return videoID;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-browser-'));
  let clipPath: string;
  // The browser and the page host start with the farm: neither needs it.
  [farm, clipPath, pageHost, browser] = await Promise.all([
    startFarm({ playback: true }),
    // 13 s: three 6 s segments per rendition, enough to load one at each of the two renditions.
    makeClip({ seconds: 13, width: 854, height: 480, fps: 24, audio: true, path: join(workDir, 'clip.mp4') }),
    // The sources a few frames past 6 s: 320x240, one rendition each.
    startPageHost({ '/play': page }),
    launchChromium(),
    ...[...wholeSources, ...chunkedSources].map(async (source, i) => {
      const seconds = source.frames / source.fps;
      const path = await makeClip({ seconds, audioSeconds: seconds - audioShortBy, width: 320, height: 240, fps: source.fps, path: join(workDir, `tail-${i}.mp4`) });
      assert.equal(await countFramesInFile(path), source.frames, `${source.name}: the clip has its frames`);
      clips.set(source, path);
    }),
  ]);
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', clipPath]);
  sourceSeconds = Number(stdout.trim());
  const clip = await readFile(clipPath);
  await farm.startNode('a', { slots: 2 });
  [publicVideoId, privateVideoId] = await Promise.all([transcode(clip, true), transcode(clip, false)]);
});

afterAll(async () => {
  await browser?.close();
  await pageHost?.close();
  await farm?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

async function playToTheEnd(src: string): Promise<Outcome> {
  const tab = await browser.newPage();
  try {
    await tab.goto(`${pageHost.origin}/play?src=${encodeURIComponent(src)}`);
    await tab.waitForFunction(
      () => {
        const outcome = (window as unknown as { playback: Outcome }).playback;
        return outcome.ended || outcome.errors.some((e) => e.includes('fatal') || !e.includes('/'));
      },
      undefined,
      { timeout: 60_000, polling: 100 },
    );
    return await tab.evaluate(() => (window as unknown as { playback: Outcome }).playback);
  } finally {
    await tab.close();
  }
}

function assertPlayedThrough(outcome: Outcome): void {
  assert.deepEqual(outcome.errors, []);
  assert.equal(outcome.ended, true);
  assert.equal(outcome.levels, 2, 'the 360p and 480p renditions');
  assert.deepEqual([...outcome.levelsPlayed].sort(), [0, 1], 'every rendition was selected and loaded');
  assert.ok(Math.abs(outcome.duration - sourceSeconds) < 0.2, `duration ${outcome.duration} against the source's ${sourceSeconds}`);
  assert.ok(outcome.currentTime >= outcome.duration - 0.1, `stopped at ${outcome.currentTime} of ${outcome.duration}`);
  assert.ok(outcome.frames > 0, 'frames were decoded');
  assert.ok(outcome.fragments >= 2, 'segments were loaded');
}

test('a public video Kino transcoded plays to the end in Chromium with hls.js, at every rendition', async () => {
  const outcome = await playToTheEnd(`${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${publicVideoId}/master.m3u8`);
  assertPlayedThrough(outcome);
});

test('a private video Kino transcoded plays to the end through its signed URL, bound to the page\'s domain', async () => {
  const { signed_url } = await farm.kino.playback.signedUrl(farm.orgId, privateVideoId, { domains: ['127.0.0.1'], expiration: '15m' });
  const outcome = await playToTheEnd(signed_url);
  assertPlayedThrough(outcome);
});

test('the same private video does not play from a page on another domain', async () => {
  const { signed_url: signed } = await farm.kino.playback.signedUrl(farm.orgId, privateVideoId, { domains: ['player.example'] });
  const outcome = await playToTheEnd(signed);
  assert.equal(outcome.ended, false);
  assert.ok(outcome.errors.some((e) => e.includes('manifestLoadError')), outcome.errors.join(', '));
});

/** The master's variants: their URI and attributes. */
function variantsOf(master: string): { uri: string; attributes: Record<string, string> }[] {
  const lines = master.split('\n');
  return lines.flatMap((line, i) => {
    if (!line.startsWith('#EXT-X-STREAM-INF:')) return [];
    const attributes = Object.fromEntries([...line.slice(18).matchAll(/([A-Z-]+)=("[^"]*"|[^,]*)/g)].map((m) => [m[1]!, m[2]!.replace(/"/g, '')]));
    return [{ uri: lines[i + 1]!.trim(), attributes }];
  });
}

/**
 * The stored playlists of a video made of `source`: every rendition's segments are the frames
 * expected, EXT-X-TARGETDURATION is 6, and BANDWIDTH is the peak of the runs of segments lasting
 * between half and one and a half target durations (RFC 8216): at least every whole segment's bit
 * rate, and a short last segment counted only with the one before it.
 */
async function assertSegments(videoId: string, source: Source): Promise<void> {
  const dir = join(workDir, videoId);
  await farm.downloadVideo(videoId, dir);
  const variants = variantsOf(await readFile(join(dir, 'hls', 'master.m3u8'), 'utf8'));
  assert.ok(variants.length > 0);
  for (const variant of variants) {
    const what = `${source.name}, ${variant.uri}`;
    const renditionDir = join(dir, 'hls', variant.uri.split('/')[0]!);
    const playlist = await readFile(join(renditionDir, 'playlist.m3u8'), 'utf8');
    assert.match(playlist, new RegExp(`^#EXT-X-TARGETDURATION:${hlsSegmentSeconds}$`, 'm'), what);
    const segments = await Promise.all(
      [...playlist.matchAll(/^#EXTINF:([\d.]+),\n(.+)$/gm)].map(async (m) => ({
        seconds: Number(m[1]),
        bits: (await readFile(join(renditionDir, m[2]!))).length * 8,
      })),
    );
    assert.deepEqual(
      segments.map((s) => Math.round(s.seconds * source.fps)),
      source.segments,
      `${what}: segments of [${segments.map((s) => s.seconds).join(', ')}] s`,
    );
    assert.ok(segments.at(-1)!.seconds >= hlsMinimumLastSegmentSeconds - 1e-6, `${what}: the last segment is no sliver`);
    const whole = segments.filter((s) => s.seconds >= hlsSegmentSeconds / 2).map((s) => s.bits / s.seconds);
    const [previous, last] = segments.slice(-2);
    const lastRun = previous && last && last.seconds < hlsSegmentSeconds / 2 ? [(previous.bits + last.bits) / (previous.seconds + last.seconds)] : [];
    const peak = Math.max(...whole, ...lastRun);
    const bandwidth = Number(variant.attributes.BANDWIDTH);
    assert.ok(bandwidth >= Math.max(...whole) - 1, `${what}: BANDWIDTH ${bandwidth} bounds every whole segment (${whole.map(Math.round).join(', ')})`);
    assert.ok(Math.abs(bandwidth - peak) <= 1, `${what}: BANDWIDTH ${bandwidth} is the peak ${Math.round(peak)}`);
  }
}

/** Plays the video in each player to `ended`, for its picture's duration and every frame. */
async function assertEveryPlayerEnds(videoId: string, source: Source): Promise<void> {
  const src = `${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videoId}/master.m3u8`;
  const seconds = source.frames / source.fps;
  for (const player of webPlayers) {
    const what = `${source.name} in ${player}`;
    const outcome = await playThrough(browser, pageHost, { player, src, rate, timeoutMs: (seconds / rate) * 1000 + 30_000 });
    assert.deepEqual(outcome.errors, [], what);
    assert.equal(outcome.ended, true, `${what}: stopped at ${outcome.currentTime} of ${outcome.duration} s, buffered ${JSON.stringify(outcome.buffered)}`);
    // The picture's duration, which its last frame ends (the sound stops before it).
    assert.ok(outcome.duration >= seconds - 0.001 && outcome.duration <= seconds + aacFrameSeconds, `${what}: a duration of ${outcome.duration} s, not ${seconds}`);
    assert.ok(outcome.currentTime >= outcome.duration - 0.001, `${what}: ended at ${outcome.currentTime} of ${outcome.duration} s`);
    // Every frame went through the decoder (presented, or dropped when late).
    assert.ok(outcome.frames >= source.frames, `${what}: ${outcome.frames} frames of ${source.frames}`);
  }
}

async function encodeAll(sources: Source[]): Promise<string[]> {
  const videoIds = await Promise.all(sources.map(async (source) => farm.submitVideo(await readFile(clips.get(source)!), { quality: 'standard' })));
  for (const videoId of videoIds) await farm.waitForStatus(videoId, 'ready', 240_000);
  return videoIds;
}

test('videos a few frames past a multiple of 6 s, encoded whole: a tail under 0.5 s joins the segment before it, and each plays to its end in hls.js and Shaka', async () => {
  const videoIds = await encodeAll(wholeSources);
  for (const [i, source] of wholeSources.entries()) {
    const videoId = videoIds[i]!;
    assert.equal((await farm.scheduledActivities(videoId)).encodeChunk, undefined, `${source.name}: encoded whole`);
    await assertSegments(videoId, source);
    await assertEveryPlayerEnds(videoId, source);
  }
});

// Last: it restarts the orchestrator with chunked encoding.
test('the same in 6 s chunks: the last chunk folds its tail the same way, and each plays to its end in hls.js and Shaka', async () => {
  farm.orchestrator = await farm.startOrchestrator({ ENCODE_CHUNK_SECONDS: String(chunkSeconds) });
  const videoIds = await encodeAll(chunkedSources);
  for (const [i, source] of chunkedSources.entries()) {
    const videoId = videoIds[i]!;
    assert.equal((await farm.scheduledActivities(videoId)).encodeChunk, source.chunks, `${source.name}: ${source.chunks} chunks`);
    await assertSegments(videoId, source);
    await assertEveryPlayerEnds(videoId, source);
  }
});
