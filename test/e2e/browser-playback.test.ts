// Proof in a real browser: Debian's Chromium (headless, through playwright-core) loads a page that
// plays HLS with hls.js from the delivery node, a public video and a private one through its
// signed URL (bound to the page's domain), each to its `ended` event with no hls.js error. The page
// is served from another origin than delivery, so CORS is exercised as a site would use it.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { chromium, type Browser } from 'playwright-core';
import { createHlsFixture, type HlsFixture } from '@kino/test/support/hls-fixture';
import { signedUrlOf, startDeliveryStack, type DeliveryStack } from '../delivery/harness.ts';

const hlsJs = readFileSync(createRequire(import.meta.url).resolve('hls.js/dist/hls.min.js'));

// The player page: plays `?src=` to the end, fast, and leaves the outcome on window.playback.
const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>Kino playback</title><script src="/hls.min.js"></script></head>
<body><video id="v" muted playsinline></video>
<script>
  const outcome = { ended: false, errors: [], levels: 0, fragments: 0, currentTime: 0, duration: 0, frames: 0 };
  window.playback = outcome;
  const video = document.getElementById('v');
  const src = new URLSearchParams(location.search).get('src');
  if (!Hls.isSupported()) outcome.errors.push('hls.js is not supported in this browser');
  const hls = new Hls({ enableWorker: true });
  hls.on(Hls.Events.ERROR, (_event, data) => outcome.errors.push(data.type + '/' + data.details + (data.fatal ? ' (fatal)' : '')));
  hls.on(Hls.Events.MANIFEST_PARSED, (_event, data) => {
    outcome.levels = data.levels.length;
    video.playbackRate = 8;
    video.play().catch((error) => outcome.errors.push('play(): ' + error.message));
  });
  hls.on(Hls.Events.FRAG_LOADED, () => outcome.fragments++);
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
  currentTime: number;
  duration: number;
  frames: number;
}

let stack: DeliveryStack;
let pageServer: Server;
let pageOrigin: string;
let browser: Browser;
let pub: HlsFixture;
let priv: HlsFixture;

beforeAll(async () => {
  stack = await startDeliveryStack({ analytics: 'chdb' });
  const fixture = (allowPublicAccess: boolean) =>
    createHlsFixture({
      db: stack.db, storage: stack.storage, workDir: stack.services.dir, allowPublicAccess,
      orgId: stack.orgId, envId: stack.envId, seconds: 8,
    });
  pub = await fixture(true);
  priv = await fixture(false);
  pageServer = createServer((req, res) => {
    if (req.url?.startsWith('/hls.min.js')) {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      res.end(hlsJs);
    } else if (req.url?.startsWith('/play')) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(page);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--autoplay-policy=no-user-gesture-required'],
  });
});

afterAll(async () => {
  await browser?.close();
  pageServer?.close();
  await stack?.stop();
});

async function playToTheEnd(src: string): Promise<Outcome> {
  const tab = await browser.newPage();
  try {
    await tab.goto(`${pageOrigin}/play?src=${encodeURIComponent(src)}`);
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

function assertPlayedThrough(outcome: Outcome, fixture: HlsFixture): void {
  assert.deepEqual(outcome.errors, []);
  assert.equal(outcome.ended, true);
  assert.equal(outcome.levels, fixture.renditions.length);
  assert.ok(Math.abs(outcome.duration - fixture.frameCount / 24) < 0.2, `duration ${outcome.duration}`);
  assert.ok(outcome.currentTime >= outcome.duration - 0.1, `stopped at ${outcome.currentTime} of ${outcome.duration}`);
  assert.ok(outcome.frames > 0, 'frames were decoded');
  assert.ok(outcome.fragments >= 2, 'segments were loaded');
}

test('a public video plays to the end in Chromium with hls.js', async () => {
  const outcome = await playToTheEnd(`${stack.delivery.url}/v1/public/${pub.orgId}/${pub.envId}/${pub.videoId}/master.m3u8`);
  assertPlayedThrough(outcome, pub);
});

test('a private video plays to the end through its signed URL, bound to the page\'s domain', async () => {
  const signed = await signedUrlOf(stack, priv.videoId, { domains: '127.0.0.1', expiration: '15m' });
  const outcome = await playToTheEnd(signed);
  assertPlayedThrough(outcome, priv);
});

test('the same private video does not play from a page on another domain', async () => {
  const signed = await signedUrlOf(stack, priv.videoId, { domains: 'player.example' });
  const outcome = await playToTheEnd(signed);
  assert.equal(outcome.ended, false);
  assert.ok(outcome.errors.some((e) => e.includes('manifestLoadError')), outcome.errors.join(', '));
});
