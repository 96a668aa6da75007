// Videos a few frames past a multiple of 6 s, played to their end as a viewer would (#36): the real
// farm encodes them, whole and in chunks, and Chromium plays each from delivery with hls.js and with
// Shaka Player (both from npm) to its `ended` event, for the source's duration and every one of its
// frames. Their sound ends 0.15 s before their picture, as recordings often do: a last segment of a
// few frames then holds no audio at all, and hls.js stalled before the end for ever (bufferStalledError).
// Kino folds a tail shorter than hlsMinimumLastSegmentSeconds into the segment before it: each
// rendition's segments are checked frame by frame, its target duration stays 6 s, and its BANDWIDTH
// bounds every whole segment's bit rate without a short tail driving it.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { hlsMinimumLastSegmentSeconds, hlsSegmentSeconds } from '@kino/proto/contract';
import { countFramesInFile, makeClip } from '@kino/test/support/media';
import { launchChromium, playerPage, playToTheEnd, startPageHost, webPlayers, type PageHost } from '@kino/test/support/players';
import { startFarm, type Farm } from '../farm/farm.ts';

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
  { name: '9 s', frames: 216, fps: 24, segments: [144, 72] },
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
let host: PageHost;
let browser: Browser;
/** Each source's clip file. */
const clips = new Map<Source, string>();

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-last-segment-'));
  const made = Promise.all(
    [...wholeSources, ...chunkedSources].map(async (source, i) => {
      const seconds = source.frames / source.fps;
      const path = await makeClip({ seconds, audioSeconds: seconds - audioShortBy, width: 320, height: 240, fps: source.fps, path: join(workDir, `clip-${i}.mp4`) });
      assert.equal(await countFramesInFile(path), source.frames, `${source.name}: the clip has its frames`);
      clips.set(source, path);
    }),
  );
  [farm] = await Promise.all([startFarm({ playback: true }), made]);
  await farm.startNode('a', { slots: 2 });
  [host, browser] = await Promise.all([startPageHost({ '/play': playerPage }), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await farm?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Each activity type's scheduled count, from the video's workflow history. */
async function scheduledActivities(videoId: string): Promise<Record<string, number>> {
  const history = await farm.temporal.workflow.getHandle(`video:${videoId}`).fetchHistory();
  const counts: Record<string, number> = {};
  for (const event of history.events ?? []) {
    const type = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (type) counts[type] = (counts[type] ?? 0) + 1;
  }
  return counts;
}

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
async function assertPlaysToTheEnd(videoId: string, source: Source): Promise<void> {
  const src = `${farm.deliveryUrl}/v1/public/${farm.orgId}/${farm.envId}/${videoId}/master.m3u8`;
  const seconds = source.frames / source.fps;
  for (const player of webPlayers) {
    const what = `${source.name} in ${player}`;
    const outcome = await playToTheEnd(browser, host, { player, src, rate, timeoutMs: (seconds / rate) * 1000 + 30_000 });
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

test('encoded whole: a tail of up to 11 frames joins the segment before it, and every video plays to its end in hls.js and Shaka', async () => {
  const videoIds = await encodeAll(wholeSources);
  for (const [i, source] of wholeSources.entries()) {
    const videoId = videoIds[i]!;
    assert.equal((await scheduledActivities(videoId)).encodeChunk, undefined, `${source.name}: encoded whole`);
    await assertSegments(videoId, source);
    await assertPlaysToTheEnd(videoId, source);
  }
});

test('encoded in 6 s chunks: the last chunk folds its tail the same way, and every video plays to its end in hls.js and Shaka', async () => {
  farm.orchestrator = await farm.startOrchestrator({ ENCODE_CHUNK_SECONDS: String(chunkSeconds) });
  const videoIds = await encodeAll(chunkedSources);
  for (const [i, source] of chunkedSources.entries()) {
    const videoId = videoIds[i]!;
    assert.equal((await scheduledActivities(videoId)).encodeChunk, source.chunks, `${source.name}: ${source.chunks} chunks`);
    await assertSegments(videoId, source);
    await assertPlaysToTheEnd(videoId, source);
  }
});
