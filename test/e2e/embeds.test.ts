// Embeds end to end, as a site that embeds a Kino video uses them: videos the real farm made (with a
// caption track and a storyboard), `/oembed` asked for the iframe's HTML, and that HTML put in a page
// of another origin (the page host, another port) opened in Debian's Chromium. Inside the iframe the
// embed page (<kino-player>, @kino/player: its controls around hls.js) plays the public video with its
// captions and storyboard previews, with no Content-Security-Policy error in the console; a private
// video plays with a token to its end and shows why it does not without one. The player's menus
// (captions, quality, speed), keys and accessibility (axe-core) are proved on the same page.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Browser, Frame, Page } from 'playwright-core';
import { makeClip } from '@kino/test/support/media';
import { launchChromium, startPageHost, type PageHost } from '@kino/test/support/players';
import type { FarmTenant } from '../farm/farm.ts';
import { joinSharedFarm } from '../farm/shared-farm.ts';

// The embedding site: puts `?html=` (the oEmbed answer's html) into its body, as a CMS does.
const sitePage = `<!doctype html>
<html><head><meta charset="utf-8"><title>A site that embeds</title><link rel="icon" href="data:,"></head>
<body><h1>My blog post</h1><div id="embed"></div>
<script>document.getElementById('embed').innerHTML = new URLSearchParams(location.search).get('html');</script>
</body></html>`;

const captions = ['WEBVTT', '', '00:00:01.000 --> 00:00:04.000', 'Hello from the embed', ''].join('\n');

let farm: FarmTenant;
let workDir: string;
let site: PageHost;
let browser: Browser;
let deliveryUrl: string;
let publicVideoId: string;
let privateVideoId: string;

async function transcode(clip: Buffer, allowPublicAccess: boolean): Promise<string> {
  const ticket = await farm.kino.uploads.createUrl(farm.orgId, farm.envId, {
    filename: 'clip.mp4',
    fileSize: clip.length,
    contentType: 'video/mp4',
  });
  await farm.kino.uploads.putFile(ticket, clip, 'video/mp4');
  const { videoID } = await farm.kino.videos.process(farm.orgId, farm.envId, {
    storagePath: ticket.bucketPath,
    videoQuality: 'standard',
    allowPublicAccess,
    videoName: allowPublicAccess ? 'Embedded "clip" <public>' : 'Private clip',
    compressionRatio: 'superfast',
  });
  await farm.waitForStatus(videoID, 'ready', 240_000);
  await farm.kino.videos.addCaption(farm.orgId, videoID, {
    language: 'en',
    label: 'English',
    content: captions,
    default: true,
  });
  return videoID;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-embeds-'));
  let clipPath: string;
  [farm, clipPath, site, browser] = await Promise.all([
    joinSharedFarm('embeds'),
    // 13 s at 854x480: two renditions, three segments, three storyboard tiles.
    makeClip({ seconds: 13, width: 854, height: 480, fps: 24, audio: true, path: join(workDir, 'clip.mp4') }),
    startPageHost({ '/post': sitePage }),
    launchChromium(),
  ]);
  deliveryUrl = farm.deliveryUrl!;
  const clip = await readFile(clipPath);
  [publicVideoId, privateVideoId] = await Promise.all([transcode(clip, true), transcode(clip, false)]);
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await farm?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

interface Oembed {
  version: string;
  type: string;
  provider_name: string;
  title: string;
  width: number;
  height: number;
  html: string;
  thumbnail_url?: string;
  thumbnail_width?: number;
  thumbnail_height?: number;
}

async function oembed(url: string, extra = ''): Promise<{ status: number; body: Oembed & { code?: string } }> {
  const response = await fetch(`${deliveryUrl}/oembed?url=${encodeURIComponent(url)}${extra}`);
  return { status: response.status, body: (await response.json()) as Oembed & { code?: string } };
}

async function privateToken(): Promise<string> {
  const { signed_url } = await farm.kino.playback.signedUrl(farm.orgId, privateVideoId, { expiration: '1h' });
  return new URL(signed_url).searchParams.get('token')!;
}

describe('oEmbed', () => {
  test('an embed URL answers a video whose html is an iframe of the embed page, sized within maxwidth', async () => {
    const { status, body } = await oembed(`${deliveryUrl}/embed/${publicVideoId}`, '&maxwidth=480&format=json');
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.version, '1.0');
    assert.equal(body.type, 'video');
    assert.equal(body.provider_name, 'Kino');
    assert.equal(body.title, 'Embedded "clip" <public>');
    assert.deepEqual([body.width, body.height], [480, 270]);
    assert.match(
      body.html,
      new RegExp(`^<iframe src="${deliveryUrl}/embed/${publicVideoId}" width="480" height="270" `),
    );
    assert.match(body.html, /allowfullscreen><\/iframe>$/);
    assert.equal(body.thumbnail_url, `${deliveryUrl}/t/${publicVideoId}/480x270.jpg`);
    const thumbnail = await fetch(body.thumbnail_url!);
    assert.equal(thumbnail.status, 200);
    assert.equal(thumbnail.headers.get('content-type'), 'image/jpeg');
  });

  test('a share URL answers an iframe of its watch page', async () => {
    const link = await farm.kino.videos.share(farm.orgId, publicVideoId);
    const { status, body } = await oembed(`${deliveryUrl}/v1/share/${link.id}`);
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual([body.width, body.height], [854, 480]);
    assert.match(body.html, new RegExp(`^<iframe src="${deliveryUrl}/v1/share/${link.id}" `));
  });

  test('a private video only with its token, which the iframe carries', async () => {
    const refused = await oembed(`${deliveryUrl}/embed/${privateVideoId}`);
    assert.deepEqual([refused.status, refused.body.code], [401, 'token_required']);
    const token = await privateToken();
    const { status, body } = await oembed(`${deliveryUrl}/embed/${privateVideoId}?token=${token}`);
    assert.equal(status, 200, JSON.stringify(body));
    assert.ok(body.html.includes(`src="${deliveryUrl}/embed/${privateVideoId}?token=${token}"`), body.html);
    assert.equal(body.thumbnail_url, `${deliveryUrl}/t/${privateVideoId}/854x480.jpg?token=${token}`);
  });

  test('errors: xml is not implemented, unknown videos and other hosts are not found, a bad url is a bad request', async () => {
    assert.equal((await oembed(`${deliveryUrl}/embed/${publicVideoId}`, '&format=xml')).status, 501);
    assert.equal((await oembed(`${deliveryUrl}/embed/vid_nosuchvideo`)).status, 404);
    assert.equal((await oembed(`http://example.com/embed/${publicVideoId}`)).status, 404);
    assert.equal((await oembed('not a url')).status, 400);
    assert.equal((await oembed(`${deliveryUrl}/embed/${publicVideoId}`, '&maxwidth=-1')).status, 400);
  });
});

describe('the embed page', () => {
  test('is framable by any site, runs only its own scripts and names its oEmbed URL', async () => {
    const response = await fetch(`${deliveryUrl}/embed/${publicVideoId}`);
    assert.equal(response.status, 200);
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors \*/);
    assert.match(csp, /script-src 'self'(;|$)/);
    const html = await response.text();
    assert.ok(html.includes('<title>Embedded &#34;clip&#34; &#60;public&#62;</title>'), html);
    const oembedHref = /<link rel="alternate" type="application\/json\+oembed" href="([^"]+)"/
      .exec(html)?.[1]
      ?.replace(/&#38;/g, '&');
    assert.equal(
      oembedHref,
      `${deliveryUrl}/oembed?url=${encodeURIComponent(`${deliveryUrl}/embed/${publicVideoId}`)}&format=json`,
    );
    const scripts = [...html.matchAll(/<script[^>]* src="([^"]+)"/g)].map((match) => match[1]!);
    assert.deepEqual(scripts, ['/v1/assets/kino-player.js']);
    for (const script of scripts) {
      const asset = await fetch(new URL(script, deliveryUrl));
      assert.equal(asset.status, 200, script);
      assert.match(asset.headers.get('content-type') ?? '', /^text\/javascript/);
      assert.match(asset.headers.get('cache-control') ?? '', /max-age=\d+/);
    }
    const gone = await fetch(`${deliveryUrl}/embed/vid_nosuchvideo`);
    assert.equal(gone.status, 404);
    assert.match(await gone.text(), /does not exist, was deleted or is not ready/);
  });
});

interface InFrame {
  frame: Frame;
  /** Console errors of the site and the iframe (a CSP violation is one). */
  consoleErrors: string[];
}

/** Opens the site's post with `html` in it; answers the embed iframe's frame once its page loaded. */
async function openEmbedded(tab: Page, html: string): Promise<InFrame> {
  const consoleErrors: string[] = [];
  tab.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  tab.on('pageerror', (error) => consoleErrors.push(error.message));
  // Which resource a "Failed to load resource" line was about.
  tab.on('response', (response) => {
    if (response.status() >= 400) consoleErrors.push(`${response.status()} ${response.url()}`);
  });
  await tab.goto(`${site.origin}/post?html=${encodeURIComponent(html)}`);
  const element = await tab.waitForSelector('iframe');
  const frame = (await element.contentFrame())!;
  await frame.waitForLoadState('load');
  return { frame, consoleErrors };
}

/** The page's <kino-player>: its <video> is `media` (in its shadow root), hls.js is `hls`. */
interface PlayerElement extends HTMLElement {
  media: HTMLVideoElement;
  hls: { levels: { height: number }[]; currentLevel: number; autoLevelEnabled: boolean } | null;
}

/** Mutes the player, presses its Play button and waits until the video has played past `seconds`. */
async function playPast(frame: Frame, seconds: number): Promise<void> {
  await frame.evaluate(() => {
    (document.getElementById('player') as PlayerElement).media.muted = true;
  });
  await frame.getByRole('button', { name: 'Play', exact: true }).click();
  await frame.waitForFunction(
    (s) => (document.getElementById('player') as PlayerElement).media.currentTime > s,
    seconds,
    {
      timeout: 60_000,
      polling: 100,
    },
  );
}

/** The choices a menu of the control bar lists, opened by its button (`Captions: Off`, `Quality: Auto`). */
async function menuChoices(frame: Frame, menu: string): Promise<string[]> {
  const button = frame.getByRole('button', { name: new RegExp(`^${menu}:`) });
  if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
  const items = frame.getByRole('menu', { name: menu }).getByRole('menuitemradio');
  await items.first().waitFor();
  return items.allTextContents();
}

describe('in Chromium, inside a page of another origin', () => {
  test('the public video plays, shows its caption cue and loads its storyboard, with no CSP error', async () => {
    const { body } = await oembed(`${deliveryUrl}/embed/${publicVideoId}`, '&maxwidth=640');
    const tab = await browser.newPage();
    try {
      const { frame, consoleErrors } = await openEmbedded(tab, body.html);
      assert.notEqual(new URL(frame.url()).origin, site.origin, 'the embed is another origin than the site');
      await playPast(frame, 1);
      // hls.js selected the default track from the master playlist; its cue is active at 1–4 s.
      await frame.waitForFunction(
        () =>
          Array.from((document.getElementById('player') as PlayerElement).media.textTracks).some(
            (track) =>
              track.mode === 'showing' &&
              Array.from(track.activeCues ?? []).some((cue) => (cue as VTTCue).text === 'Hello from the embed'),
          ),
        undefined,
        { timeout: 30_000, polling: 100 },
      );
      // The captions menu lists the track, chosen.
      assert.deepEqual(await menuChoices(frame, 'Captions'), ['Off', 'English']);
      assert.equal(await frame.getByRole('menuitemradio', { name: 'English' }).getAttribute('aria-checked'), 'true');
      await tab.keyboard.press('Escape');
      // Hovering the seek bar near its end previews the storyboard's tile of that moment (13 s: three
      // tiles of 5 s, the third at x 320 of sheet 0).
      const sheet = tab.waitForResponse((response) => /storyboard-0\.jpg/.test(response.url()));
      const seek = frame.getByRole('slider', { name: 'Seek' });
      const box = (await seek.boundingBox())!;
      await tab.mouse.move(box.x + box.width * 0.95, box.y + box.height / 2);
      const tile = await frame.locator('kino-player .tile').evaluate((element: HTMLElement) => ({
        image: element.style.backgroundImage,
        position: element.style.backgroundPosition,
      }));
      assert.match(tile.image, new RegExp(`/v1/public/.+/${publicVideoId}/storyboard-0\\.jpg`));
      assert.equal(tile.position, '-320px 0px');
      assert.equal((await sheet).status(), 200);
      assert.deepEqual(consoleErrors, []);
    } finally {
      await tab.close();
    }
  });

  test('a private video plays with a token and refuses without one', async () => {
    const token = await privateToken();
    const { body } = await oembed(`${deliveryUrl}/embed/${privateVideoId}?token=${token}`);
    const tab = await browser.newPage();
    try {
      const { frame, consoleErrors } = await openEmbedded(tab, body.html);
      await playPast(frame, 1);
      assert.deepEqual(consoleErrors, []);
    } finally {
      await tab.close();
    }
    const without = await browser.newPage();
    try {
      const { frame } = await openEmbedded(without, body.html.replace(/\?token=[^"]+/, ''));
      assert.equal(
        await frame.locator('#message').textContent(),
        'This video is private: play it with a signed URL (its `token` query parameter).',
      );
      assert.equal(await frame.locator('kino-player').count(), 0);
    } finally {
      await without.close();
    }
  });
});

describe('<kino-player> on the embed page of the captioned private video', () => {
  const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

  /** The embed page of the private video with a fresh token, opened straight (no site around it). */
  async function openPlayer(tab: Page): Promise<{ frame: Frame; consoleErrors: string[] }> {
    const consoleErrors: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    tab.on('pageerror', (error) => consoleErrors.push(error.message));
    tab.on('response', (response) => {
      if (response.status() >= 400) consoleErrors.push(`${response.status()} ${response.url()}`);
    });
    await tab.goto(`${deliveryUrl}/embed/${privateVideoId}?token=${await privateToken()}`);
    await tab.waitForFunction(
      () => (document.getElementById('player') as PlayerElement).media.readyState >= 1,
      undefined,
      {
        timeout: 60_000,
        polling: 100,
      },
    );
    return { frame: tab.mainFrame(), consoleErrors };
  }

  test('plays to its end at 2× chosen in the speed menu, its caption showing and its poster the thumbnail', async () => {
    const tab = await browser.newPage();
    try {
      const { frame, consoleErrors } = await openPlayer(tab);
      const poster = await frame.evaluate(() => (document.getElementById('player') as PlayerElement).media.poster);
      assert.match(poster, new RegExp(`/t/${privateVideoId}/854x480\\.jpg\\?token=`));
      assert.equal((await fetch(poster)).status, 200);
      assert.deepEqual(await menuChoices(frame, 'Speed'), ['0.5×', '0.75×', 'Normal', '1.25×', '1.5×', '2×']);
      await frame.getByRole('menuitemradio', { name: '2×' }).click();
      assert.equal(await frame.getByRole('button', { name: /^Speed:/ }).textContent(), 'Speed: 2×');
      await playPast(frame, 1.5);
      assert.equal(
        await frame.evaluate(() => (document.getElementById('player') as PlayerElement).media.playbackRate),
        2,
      );
      await frame.waitForFunction(
        () =>
          Array.from((document.getElementById('player') as PlayerElement).media.textTracks).some(
            (track) =>
              track.mode === 'showing' &&
              Array.from(track.activeCues ?? []).some((cue) => (cue as VTTCue).text === 'Hello from the embed'),
          ),
        undefined,
        { timeout: 30_000, polling: 50 },
      );
      await frame.waitForFunction(() => (document.getElementById('player') as PlayerElement).media.ended, undefined, {
        timeout: 60_000,
        polling: 100,
      });
      const end = await frame.evaluate(() => {
        const media = (document.getElementById('player') as PlayerElement).media;
        return { currentTime: media.currentTime, duration: media.duration };
      });
      assert.ok(Math.abs(end.currentTime - end.duration) < 0.5 && end.duration > 12, JSON.stringify(end));
      assert.equal(
        await frame.getByRole('button', { name: 'Play', exact: true }).count(),
        1,
        'the button offers Play again',
      );
      assert.deepEqual(consoleErrors, []);
    } finally {
      await tab.close();
    }
  });

  test('the quality menu lists Auto and every rung; choosing one holds playback on it, Auto hands it back to hls.js', async () => {
    const tab = await browser.newPage();
    try {
      const { frame } = await openPlayer(tab);
      const master = await (
        await fetch(`${deliveryUrl}/v1/private/${privateVideoId}/master.m3u8?token=${await privateToken()}`)
      ).text();
      const heights = [...master.matchAll(/RESOLUTION=\d+x(\d+)/g)].map((match) => Number(match[1]));
      assert.ok(heights.length >= 2, master);
      const rungs = [...new Set(heights)].sort((a, b) => b - a).map((height) => `${height}p`);
      assert.deepEqual(await menuChoices(frame, 'Quality'), ['Auto', ...rungs]);
      await playPast(frame, 0.5);
      // The highest rung, then the lowest: each choice holds hls.js on that level (no longer Auto), and
      // the pictures decoded are that rung's; Auto gives the choice back to hls.js.
      const onLevel = (height: number) =>
        frame.waitForFunction(
          (height) => {
            const player = document.getElementById('player') as PlayerElement;
            const level = player.hls!.levels[player.hls!.currentLevel];
            return !player.hls!.autoLevelEnabled && level?.height === height && player.media.videoHeight === height;
          },
          height,
          { timeout: 30_000, polling: 100 },
        );
      for (const chosen of [Math.max(...heights), Math.min(...heights)]) {
        await menuChoices(frame, 'Quality');
        await frame.getByRole('menuitemradio', { name: `${chosen}p` }).click();
        await onLevel(chosen);
        assert.equal(await frame.getByRole('button', { name: /^Quality:/ }).textContent(), `Quality: ${chosen}p`);
      }
      await menuChoices(frame, 'Quality');
      await frame.getByRole('menuitemradio', { name: 'Auto' }).click();
      assert.equal(
        await frame.evaluate(() => (document.getElementById('player') as PlayerElement).hls!.autoLevelEnabled),
        true,
      );
    } finally {
      await tab.close();
    }
  });

  test('keys: space toggles play, arrows seek by 5 s, and Tab reaches every control by its label', async () => {
    const tab = await browser.newPage();
    try {
      const { frame } = await openPlayer(tab);
      const state = () =>
        frame.evaluate(() => {
          const media = (document.getElementById('player') as PlayerElement).media;
          return { paused: media.paused, time: media.currentTime };
        });
      await frame.evaluate(() => {
        const player = document.getElementById('player') as PlayerElement;
        player.media.muted = true;
        player.focus();
      });
      await tab.keyboard.press('Space');
      await frame.waitForFunction(() => (document.getElementById('player') as PlayerElement).media.currentTime > 0.3);
      await tab.keyboard.press('Space');
      const paused = await state();
      assert.equal(paused.paused, true);
      await tab.keyboard.press('ArrowRight');
      await frame.waitForFunction(() => !(document.getElementById('player') as PlayerElement).media.seeking);
      assert.ok(
        Math.abs((await state()).time - (paused.time + 5)) < 0.01,
        `${(await state()).time} after ${paused.time}`,
      );
      await tab.keyboard.press('ArrowLeft');
      assert.ok(Math.abs((await state()).time - paused.time) < 0.01);
      assert.equal((await state()).paused, true);
      // From the player itself, Tab walks the control bar in order; each stop has a name.
      const stops: string[] = [];
      for (let i = 0; i < 12; i++) {
        await tab.keyboard.press('Tab');
        const label = await frame.evaluate(() => {
          const inner = document.getElementById('player')!.shadowRoot!.activeElement;
          return inner ? (inner.getAttribute('aria-label') ?? inner.textContent ?? '') : null;
        });
        if (label === null) break;
        stops.push(label);
      }
      const expected = ['Play', 'Seek', 'Unmute', 'Volume', 'Captions: English', 'Quality: Auto', 'Speed: Normal'];
      const pip = await frame.evaluate(() => document.pictureInPictureEnabled);
      const fullscreen = await frame.evaluate(() => document.fullscreenEnabled);
      if (pip) expected.push('Picture in picture');
      if (fullscreen) expected.push('Fullscreen');
      assert.deepEqual(stops, expected);
    } finally {
      await tab.close();
    }
  });

  test('axe-core finds no serious or critical violation, with the controls shown and with a menu open', async () => {
    // The page's CSP allows this host's scripts only; axe is put in by the test, so CSP is bypassed here.
    const context = await browser.newContext({ bypassCSP: true });
    try {
      const tab = await context.newPage();
      const { frame } = await openPlayer(tab);
      await frame.addScriptTag({ content: await axeSource });
      const audit = () =>
        frame.evaluate(async () => {
          const axe = (
            window as unknown as {
              axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> };
            }
          ).axe;
          const { violations } = await axe.run();
          return violations
            .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
            .map((violation) => `${violation.id} (${violation.impact}, ${violation.nodes.length} nodes)`);
        });
      assert.deepEqual(await audit(), []);
      await menuChoices(frame, 'Quality');
      assert.deepEqual(await audit(), []);
    } finally {
      await context.close();
    }
  });
});
