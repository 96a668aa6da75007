// Proof in a real browser that Kino's own output plays: a clip uploaded through the SDK is
// transcoded by the real farm (API, Temporal, orchestrator, an encode node) and Debian's Chromium
// (headless, through playwright-core) plays it with hls.js from the delivery node, a public video
// and a private one through its signed URL (bound to the page's domain), each to its `ended` event
// with no hls.js error, for the source's duration, after loading segments at every rendition (the
// page forces each level in turn). The page is served from another origin than delivery, so CORS is
// exercised as a site would use it.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { makeClip } from '@kino/test/support/media';
import { launchChromium, startPageHost, type PageHost } from '@kino/test/support/players';
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

let farm: Farm;
let workDir: string;
let pageHost: PageHost;
let browser: Browser;
/** The source's duration (ffprobe), which playback must last. */
let sourceSeconds: number;
let publicVideoId: string;
let privateVideoId: string;

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
  [farm, clipPath] = await Promise.all([
    startFarm({ playback: true }),
    // 13 s: three 6 s segments per rendition, enough to load one at each of the two renditions.
    makeClip({ seconds: 13, width: 854, height: 480, fps: 24, audio: true, path: join(workDir, 'clip.mp4') }),
  ]);
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', clipPath]);
  sourceSeconds = Number(stdout.trim());
  const clip = await readFile(clipPath);
  await farm.startNode('a', { slots: 2 });
  [publicVideoId, privateVideoId] = await Promise.all([transcode(clip, true), transcode(clip, false)]);
  [pageHost, browser] = await Promise.all([startPageHost({ '/play': page }), launchChromium()]);
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
