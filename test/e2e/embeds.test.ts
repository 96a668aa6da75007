// Embeds end to end, as a site that embeds a Kino video uses them: videos the real farm made (with a
// caption track and a storyboard), `/oembed` asked for the iframe's HTML, and that HTML put in a page
// of another origin (the page host, another port) opened in Debian's Chromium. Inside the iframe the
// embed page (media-chrome around hls.js) plays the public video with its captions and storyboard,
// with no Content-Security-Policy error in the console; a private video plays with a token and shows
// why it does not without one.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    for (const script of html.matchAll(/<script src="([^"]+)"/g)) {
      const asset = await fetch(new URL(script[1]!, deliveryUrl));
      assert.equal(asset.status, 200, script[1]);
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

/** Clicks media-chrome's play button and waits until the video has played past `seconds`. */
async function playPast(frame: Frame, seconds: number): Promise<void> {
  await frame.evaluate(() => {
    (document.getElementById('player') as HTMLVideoElement).muted = true;
  });
  await frame.click('media-play-button');
  await frame.waitForFunction((s) => (document.getElementById('player') as HTMLVideoElement).currentTime > s, seconds, {
    timeout: 60_000,
    polling: 100,
  });
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
          Array.from((document.getElementById('player') as HTMLVideoElement).textTracks).some(
            (track) =>
              track.mode === 'showing' &&
              Array.from(track.activeCues ?? []).some((cue) => (cue as VTTCue).text === 'Hello from the embed'),
          ),
        undefined,
        { timeout: 30_000, polling: 100 },
      );
      // media-chrome's captions menu lists the track.
      const listed = await frame.evaluate(
        () => document.querySelector('media-captions-menu-button')?.getAttribute('mediasubtitleslist') ?? '',
      );
      assert.match(listed, /English/);
      // The storyboard's cues (media-chrome's preview thumbnails) are loaded.
      const storyboardCues = await frame.evaluate(() => {
        const track = Array.from((document.getElementById('player') as HTMLVideoElement).textTracks).find(
          (t) => t.label === 'thumbnails',
        );
        return track?.cues?.length ?? -1;
      });
      assert.ok(storyboardCues > 0, `storyboard cues: ${storyboardCues}`);
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
      assert.equal(await frame.locator('video').count(), 0);
    } finally {
      await without.close();
    }
  });
});
