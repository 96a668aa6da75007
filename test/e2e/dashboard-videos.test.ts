// The dashboard's media pages in a real browser (Debian's Chromium through playwright-core), against
// the dev stack with its OpenID provider, signed in as the dev user (test/support/dashboard.ts): two
// clips dropped on the upload panel go straight to storage, each row linking to its video, and one is
// seen to reach `ready` on the video page, whose ladder shows each rendition's codec, bitrate and
// VMAF, and which plays it to the end through its session-minted signed URL; the thumbnail picker
// sets a new default thumbnail; a share link is made; a caption track is added (the player lists it)
// and removed; a frame-accurate clip is made from the player's position and becomes ready; the embed
// snippet names a page that plays; the page's playback URL plays and its MP4 and audio downloads
// answer, the poster shows in a 16:9 box before play; the table's search and status filter narrow
// it; a failed video's page says why; every page fits 1280 and 390 px wide without scrolling
// sideways; the analytics page's daily chart counts the segments just played once the rollup has
// them; the video is deleted from its page; a file over the multipart threshold goes up in parts; a
// URL is ingested with the panel's encoding choices. Screenshots of each page land in the test
// output directory.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { waitFor } from '@kino/dev';
import { DEFAULT_MULTIPART_THRESHOLD, Kino, VideoProcessingFailedError, type VideoDetails } from '@kino/sdk/node';
import { makeClip } from '@kino/test/support/media';
import { devUser, signIn, startDashboard, type DashboardHarness } from '@kino/test/support/dashboard';

let dash: DashboardHarness;
let page: Page;
let workDir: string;
let clipPath: string;
let videoId: string;
/** A video whose processing failed (its file is no video). */
let failedId: string;
/** What the browser reported the Content-Security-Policy refused, on any page of this file. */
const cspViolations: string[] = [];

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'kino-dashboard-videos-'));
  [dash, clipPath] = await Promise.all([
    // The whole farm: one encode node, delivery, and the analytics store (chDB).
    // The node's speech engine too, for the captions tab's "Generate captions".
    startDashboard('dashboard-videos', { nodes: 1, slots: 2, speech: true }),
    // 640x360, 7 s: one rendition (360p) of two segments; small enough to encode in seconds.
    makeClip({ seconds: 7, width: 640, height: 360, fps: 24, audio: true, path: join(workDir, 'dashboard clip.mp4') }),
  ]);
  page = await (await dash.newContext()).newPage();
  // The video page's chips copy to the clipboard, which the tests read.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  await signIn(page, dash.dashboardUrl, devUser);
});

afterAll(async () => {
  await dash?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

const videoStatus = (p: Page) =>
  p.locator('[data-testid=video-page] [data-testid=video-status]').getAttribute('data-status');

/** Chooses a tab of the video page and waits for its panel. */
async function openTab(p: Page, id: string): Promise<void> {
  await p.getByTestId(`tab-${id}`).click();
  await p.getByTestId(`panel-${id}`).waitFor();
}

/** What a chip of the video page copies: its click, then the clipboard. */
async function copiedBy(chip: Locator): Promise<string> {
  await chip.click();
  await chip.getByText('Copied').waitFor();
  return chip.page().evaluate(() => navigator.clipboard.readText());
}

test('two files dropped on the upload panel go to storage side by side, each row links to its video, and one is seen to reach ready on its page', async () => {
  await page.goto(`${dash.dashboardUrl}/videos`);
  await page.getByTestId('upload-open').click();
  // Dropped as a person drops files from the desktop: a drop event whose DataTransfer holds two Files.
  const clipBytes = (await readFile(clipPath)).toString('base64');
  const dataTransfer = await page.evaluateHandle(
    ({ bytes, names }) => {
      const data = Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      for (const name of names) transfer.items.add(new File([data], name, { type: 'video/mp4' }));
      return transfer;
    },
    { bytes: clipBytes, names: ['dashboard clip.mp4', 'second clip.mp4'] },
  );
  // Content-aware with AV1 beside H.264: the ladder below then has codec renditions and VMAF scores.
  await page.getByTestId('upload-encoding-mode').selectOption('contentAware');
  await page.getByTestId('upload-codec-av1').check();
  // A watermark: the image goes to the environment once, and both videos name it.
  const logo = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==',
    'base64',
  );
  await page.getByTestId('upload-watermark').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logo });
  await page.getByTestId('upload-watermark-position').selectOption('bottom-left');
  await page.getByTestId('upload-drop').dispatchEvent('drop', { dataTransfer });
  const rows = page.getByTestId('upload-row');
  await page.waitForFunction(
    () =>
      Array.from(document.querySelectorAll('[data-testid=upload-row]')).filter((row) =>
        ['done', 'failed'].includes(row.getAttribute('data-state')!),
      ).length === 2,
    undefined,
    { timeout: 60_000, polling: 200 },
  );
  const uploadError = page.getByTestId('upload-error');
  if ((await uploadError.count()) > 0) assert.fail(`an upload failed: ${await uploadError.first().textContent()}`);
  assert.equal(await rows.count(), 2);
  const links = await rows
    .locator('[data-testid=upload-done] a')
    .evaluateAll((anchors) => anchors.map((a) => [a.textContent!.trim(), a.getAttribute('href')]));
  assert.equal(links.length, 2, 'a link per file');
  assert.notEqual(links[0]![0], links[1]![0], 'two videos');
  for (const [id, href] of links) assert.equal(href, `/dashboard/videos/${id}`);
  const done = rows.filter({ hasText: 'dashboard clip.mp4' }).getByTestId('upload-done');
  videoId = (await done.locator('a').textContent())!.trim();
  assert.match(videoId, /\S+/);
  // The table shows the new video (the upload panel and the live updates mark it stale).
  await page.locator(`[data-testid=video-row][data-video-id="${videoId}"]`).waitFor({ timeout: 30_000 });
  await dash.screenshot(page, 'videos');

  await done.locator('a').click();
  await page.getByTestId('video-page').waitFor();
  // The orchestrator's processing event reaches the page as a live update: wait for it to say ready.
  await page
    .locator('[data-testid=video-page] [data-testid=video-status][data-status=ready]')
    .waitFor({ timeout: 240_000 });
  assert.equal(await videoStatus(page), 'ready');
  await openTab(page, 'encoding');
  assert.ok(
    (await page.getByTestId('encoding-ladder').locator('tbody tr').count()) >= 1,
    'the ladder lists the renditions',
  );
  // Each rendition's codec, bitrate (the measured average when known, else the ladder's, labelled)
  // and VMAF (— until measured), as the details have them.
  const details = await page.evaluate(
    async (url) => ((await (await fetch(url)).json()) as { body: VideoDetails }).body,
    `${dash.apiUrl}/${dash.orgId}/videos/${videoId}/details`,
  );
  assert.equal(details.watermark?.position, 'bottom-left', 'the watermark chosen in the upload panel');
  assert.match(details.watermark?.imageId ?? '', /^img_\w+$/);
  const codecLabels = { h264: 'H.264', hevc: 'HEVC', av1: 'AV1' };
  const shown = await page
    .getByTestId('encoding-row')
    .evaluateAll((rows) =>
      rows.map((row) =>
        ['encoding-codec', 'encoding-bitrate', 'encoding-vmaf'].map((id) =>
          row.querySelector(`[data-testid=${id}]`)?.textContent?.trim(),
        ),
      ),
    );
  assert.deepEqual(
    shown,
    details.encodings.map((e) => [
      codecLabels[e.videoCodec],
      e.averageBitrate === undefined ? `${e.videoStreamBitrate} kbps ladder` : `${e.averageBitrate} kbps measured`,
      e.vmaf === undefined ? '—' : e.vmaf.toFixed(2),
    ]),
  );
  assert.deepEqual(
    shown.map(([codec]) => codec),
    ['H.264', 'AV1'],
    'the 360p rung, then the same in AV1',
  );
  assert.ok(
    shown.every(([, bitrate, vmaf]) => /kbps measured$/.test(bitrate!) && /^\d+\.\d\d$/.test(vmaf!)),
    `every rendition measured: ${JSON.stringify(shown)}`,
  );
});

test('the video page plays the video to the end through its signed URL', async () => {
  const player = page.getByTestId('player');
  await player.waitFor();
  // hls.js has loaded the playlists and the first segment's metadata.
  await page.waitForFunction(
    () => document.querySelector<HTMLElementTagNameMap['kino-player']>('[data-testid=player]')!.media.readyState >= 1,
    undefined,
    { timeout: 60_000 },
  );
  const src = await page.evaluate(async () => {
    const video = document.querySelector<HTMLElementTagNameMap['kino-player']>('[data-testid=player]')!.media;
    (window as unknown as { ended: boolean }).ended = false;
    video.addEventListener('ended', () => ((window as unknown as { ended: boolean }).ended = true), { once: true });
    video.muted = true;
    video.playbackRate = 2;
    await video.play();
    return video.currentSrc;
  });
  assert.ok(src.startsWith('blob:'), `hls.js feeds the element through Media Source Extensions (${src})`);
  await page.waitForFunction(() => (window as unknown as { ended: boolean }).ended, undefined, {
    timeout: 60_000,
    polling: 200,
  });
  const { currentTime, duration } = await player.evaluate(({ media }: HTMLElementTagNameMap['kino-player']) => ({
    currentTime: media.currentTime,
    duration: media.duration,
  }));
  assert.ok(Math.abs(duration - 7) < 0.3, `duration ${duration} of a 7 s clip`);
  assert.ok(currentTime >= duration - 0.1, `ended at ${currentTime} of ${duration}`);
});

test('the thumbnail picker makes the scrubbed instant the default thumbnail', async () => {
  await openTab(page, 'settings');
  const before = await page.getByTestId('current-thumbnail').getAttribute('src');
  await page.getByTestId('thumbnail-scrubber').fill('3');
  await page.getByTestId('storyboard-tile').waitFor();
  await page.getByTestId('thumbnail-set').click();
  await page.getByTestId('thumbnail-saved').waitFor({ timeout: 60_000 });
  const after = await page.getByTestId('current-thumbnail').getAttribute('src');
  assert.notEqual(after, before, 'the page shows the new default thumbnail');
  assert.ok(
    await page
      .getByTestId('current-thumbnail')
      .evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth > 0)),
    'and it loads',
  );

  await openTab(page, 'share');
  await page.getByTestId('share-create').click();
  const shareUrl = await page.getByTestId('share-url').textContent();
  assert.match(shareUrl ?? '', /^https?:\/\//);
  await page.getByTestId('share-link-row').first().waitFor();
  await dash.screenshot(page, 'video');
});

test('the video page adds a caption track, the player lists it, and the page removes it', async () => {
  const vttPath = join(workDir, 'english.vtt');
  await writeFile(vttPath, 'WEBVTT\n\n00:00:01.000 --> 00:00:03.000\nHello from the dashboard\n');
  await openTab(page, 'captions');
  const captions = page.getByTestId('captions');
  await captions.getByTestId('caption-file').setInputFiles(vttPath);
  await captions.getByTestId('caption-language').fill('en');
  await captions.getByTestId('caption-default').check();
  await captions.getByTestId('caption-add').click();
  const row = captions.locator('[data-testid=caption-row][data-language=en]');
  await row.waitFor({ timeout: 30_000 });
  assert.deepEqual(
    await row.locator('td').evaluateAll((cells) => cells.slice(1, 4).map((cell) => cell.textContent!.trim())),
    ['English', 'Uploaded', 'yes'],
  );
  // The page made a new player for the tracks: its video element gets the English text track.
  await page.waitForFunction(
    () => {
      const video = document.querySelector<HTMLElementTagNameMap['kino-player']>('[data-testid=player]')?.media;
      return (
        !!video && Array.from(video.textTracks).some((track) => track.language === 'en' && track.label === 'English')
      );
    },
    undefined,
    { timeout: 60_000, polling: 200 },
  );
  // Its transcript: the words without the cue times, to copy and to download as text.
  await row.getByTestId('caption-transcript').click();
  const transcript = page.getByTestId('transcript');
  assert.equal(await transcript.getByTestId('transcript-text').textContent(), 'Hello from the dashboard');
  await transcript.getByRole('button', { name: 'Copy' }).click();
  await transcript.getByRole('button', { name: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'Hello from the dashboard');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    transcript.getByTestId('transcript-download').click(),
  ]);
  assert.equal(download.suggestedFilename(), `${videoId}-en.txt`);
  assert.equal(await readFile((await download.path())!, 'utf8'), 'Hello from the dashboard');
  await dash.screenshot(page, 'captions');

  await row.getByTestId('caption-remove').click();
  await captions.getByTestId('empty-state').filter({ hasText: 'No caption tracks' }).waitFor({ timeout: 30_000 });
  assert.equal(await captions.getByTestId('caption-error').count(), 0);
});

test("the captions tab's Generate makes a track from the speech on the farm, marked generated, whose transcript it shows", async () => {
  const captions = page.getByTestId('captions');
  await captions.getByTestId('caption-generate-language').selectOption('en');
  await captions.getByTestId('caption-generate').click();
  await page.getByTestId('toast').filter({ hasText: 'Generating captions' }).waitFor();
  // The node transcribes it; `video.caption.ready` reaches the page as a live update, which reads the list again.
  const row = captions.locator('[data-testid=caption-row][data-language=en][data-source=generated]');
  await row.waitFor({ timeout: 120_000 });
  assert.equal(await row.getByTestId('caption-source').textContent(), 'Generated');
  assert.equal(await captions.getByTestId('caption-generate-error').count(), 0);
  const answer = await page.evaluate(async (url) => {
    const response = await fetch(url);
    return { status: response.status, json: (await response.json()) as { body: { text: string } } };
  }, `${dash.apiUrl}/${dash.orgId}/videos/${videoId}/transcript?language=en`);
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  const { text } = answer.json.body;
  await row.getByTestId('caption-transcript').click();
  const shown = await page.getByTestId('transcript-text').textContent();
  // The clip's sound is a tone: the engine may hear no words at all, which the page says.
  assert.equal(shown, text || 'No words were heard.');
  await row.getByTestId('caption-remove').click();
  await captions.getByTestId('empty-state').filter({ hasText: 'No caption tracks' }).waitFor({ timeout: 30_000 });
});

test("the Clip control makes a frame-accurate clip from the player's position and links to it; it becomes ready", async () => {
  await openTab(page, 'clips');
  await page.getByTestId('player').evaluate(({ media }: HTMLElementTagNameMap['kino-player']) => {
    media.currentTime = 6.5;
  });
  await page.getByTestId('clip-end-here').click();
  assert.equal(await page.getByTestId('clip-end').inputValue(), '6.50', "the end is the player's position");
  await page.getByTestId('clip-frame-accurate').check();
  await page.getByTestId('clip-create').click();
  const link = page.getByTestId('clip-made').getByRole('link');
  await link.waitFor({ timeout: 30_000 });
  const clipId = (await link.textContent())!;
  assert.notEqual(clipId, videoId);
  await link.click();
  await page.getByTestId('clip-of').getByText(videoId).waitFor();
  assert.match((await page.getByTestId('clip-of').textContent()) ?? '', /0–6\.5 s/);
  // Its first and last segments encoded, the page turns ready by itself.
  await page
    .locator('[data-testid=video-page] [data-testid=video-status][data-status=ready]')
    .waitFor({ timeout: 120_000 });
  // It plays exactly 0–6.5 s (a segment-accurate clip would play the whole 7 s of both segments).
  await page.waitForFunction(
    () =>
      Math.abs(
        (document.querySelector<HTMLElementTagNameMap['kino-player']>('[data-testid=player]')?.media.duration ?? 0) -
          6.5,
      ) < 0.05,
    undefined,
    { timeout: 30_000, polling: 200 },
  );
  await page.goto(`${dash.dashboardUrl}/videos/${videoId}`);
  await page.getByTestId('player').waitFor();
});

test("the video page's embed chips copy delivery's oEmbed iframe of the embed URL, which plays there", async () => {
  const chips = page.getByTestId('delivery-links');
  const embedUrl = await copiedBy(chips.getByTestId('embed-page-url'));
  const html = await copiedBy(chips.getByTestId('embed-html'));
  assert.match(embedUrl, new RegExp(`^https?://[^/]+/embed/${videoId}(\\?token=[\\w.-]+)?$`));
  assert.ok(html.startsWith(`<iframe src="${embedUrl}" width="640" height="360" `), html);
  // A private video's chips say when its token stops playing; the token itself is not on the page.
  const isPrivate = embedUrl.includes('?token=');
  assert.equal(await page.getByTestId('embed-expiry').count(), isPrivate ? 1 : 0);
  if (isPrivate) {
    const token = new URL(embedUrl).searchParams.get('token')!;
    assert.equal((await page.locator('main').innerText()).includes(token), false, 'no token printed');
  }
  const response = await fetch(embedUrl);
  assert.equal(response.status, 200);
  assert.match(await response.text(), /<kino-player /);
});

/** The video's details as the API answers them, asked with the page's session. */
const detailsOf = (id: string) =>
  page.evaluate(
    async (url) => ((await (await fetch(url)).json()) as { body: VideoDetails }).body,
    `${dash.apiUrl}/${dash.orgId}/videos/${id}/details`,
  );

test("the video page's chips copy its playback and embed URLs, downloads that answer, and the poster shows in a 16:9 box before play", async () => {
  await page.goto(`${dash.dashboardUrl}/videos/${videoId}`);
  const player = page.getByTestId('player');
  await player.waitFor();
  const details = await detailsOf(videoId);
  assert.ok(details.thumbnailUrl && details.audioUrl, 'a video with a picture and sound');
  // Before play: the thumbnail as the poster, in a box of 16:9 (the placeholder before it has the same).
  const box = await player.evaluate((element: HTMLElementTagNameMap['kino-player']) => {
    const { width, height } = element.getBoundingClientRect();
    const { poster, paused, currentTime } = element.media;
    return { width, height, poster, paused, currentTime };
  });
  // The same image (each details answer signs its image token afresh).
  assert.equal(box.poster.split('?')[0], details.thumbnailUrl.split('?')[0]);
  assert.ok(box.paused && box.currentTime === 0, 'not played yet');
  assert.ok(Math.abs(box.width / box.height - 16 / 9) < 0.01, `${box.width}x${box.height} is 16:9`);

  // The URLs are the video's path family on the delivery host (audio.m4a's directory): a public
  // video's public paths, a private one's (the upload's default) with the token of a signed URL.
  // Each chip copies its whole URL.
  const links = page.getByTestId('delivery-links');
  await links.waitFor();
  const playbackUrl = await copiedBy(links.getByTestId('playback-url'));
  const withoutQuery = (url: string) => url.replace(/\?.*$/, '');
  assert.equal(withoutQuery(playbackUrl), withoutQuery(details.audioUrl).replace(/audio\.m4a$/, 'master.m3u8'));
  const token = new URL(playbackUrl).searchParams.get('token');
  assert.equal(token !== null, !details.allowPublicAccess, 'a token exactly when the video is private');
  const master = await fetch(playbackUrl);
  assert.equal(master.status, 200);
  assert.match(await master.text(), /^#EXTM3U[\s\S]*#EXT-X-STREAM-INF/);
  assert.equal(
    await copiedBy(links.getByTestId('embed-page-url')),
    `${new URL(playbackUrl).origin}/embed/${videoId}${token ? `?token=${token}` : ''}`,
  );
  // The animated preview answers a WebP of the first 5 s, from the same family and token.
  const preview = await copiedBy(links.getByTestId('animated-preview-url'));
  assert.equal(withoutQuery(preview), withoutQuery(playbackUrl).replace(/master\.m3u8$/, 'animated.webp'));
  const webp = await fetch(preview);
  assert.equal(webp.status, 200, await webp.clone().text());
  assert.equal(webp.headers.get('content-type'), 'image/webp');
  assert.equal(
    Buffer.from(await webp.arrayBuffer())
      .subarray(8, 12)
      .toString('latin1'),
    'WEBP',
  );

  const downloads: string[] = [];
  for (const chip of await links.getByTestId('mp4-download').all()) downloads.push(await copiedBy(chip));
  // An MP4 per H.264 rendition; none of the AV1 one (MP4 downloads stay H.264, which plays anywhere).
  assert.deepEqual(
    downloads,
    details.encodings
      .filter((encoding) => encoding.videoCodec === 'h264')
      .map((encoding) => playbackUrl.replace('/master.m3u8', `/video-${encoding.key}.mp4`)),
  );
  assert.ok(
    details.encodings.some((encoding) => encoding.videoCodec === 'av1'),
    'the video has an AV1 rendition',
  );
  // The page's details signed their own token: the same file.
  const audioUrl = await copiedBy(links.getByTestId('audio-download'));
  assert.equal(withoutQuery(audioUrl), withoutQuery(details.audioUrl));
  for (const url of [...downloads, audioUrl]) {
    const response = await fetch(url);
    assert.equal(response.status, 200, url);
    assert.match(response.headers.get('content-disposition') ?? '', /^attachment/, url);
    assert.ok((await response.arrayBuffer()).byteLength > 0, url);
  }
});

/** The video page's tabs, in their order. */
const videoTabs = ['settings', 'captions', 'clips', 'share', 'encoding', 'analytics'];

/**
 * The page as the stacked cards made it, measured on main before the tabs with this file's clip (7 s,
 * 640x360, one share link): its scroll height at 1440 and 390 px wide.
 */
const stackedHeights: Record<number, number> = { 1440: 2525, 390: 4246 };

test('the video page is its player, facts and chips on top and the rest in tabs: about half as tall as the stacked cards at 1440 and 390 px, nothing wider than its container, no serious axe-core violation on any tab; arrows choose tabs and the tab survives a reload', async () => {
  // axe-core is put into the page by the test, which the dashboard's CSP would refuse: a context of its own.
  const context = await dash.browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
  const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const problems: string[] = [];
  try {
    const tab = await context.newPage();
    await signIn(tab, dash.dashboardUrl, devUser, `/videos/${videoId}`);
    for (const width of [1440, 390]) {
      await tab.setViewportSize({ width, height: 900 });
      await tab.goto(`${dash.dashboardUrl}/videos/${videoId}`);
      await tab.getByTestId('delivery-links').waitFor();
      await tab.addScriptTag({ content: axeSource });
      let tallest = 0;
      for (const id of videoTabs) {
        await openTab(tab, id);
        const seen = await tab.evaluate(async () => {
          const root = document.querySelector('[data-testid=video-page]')!;
          // An element past its parent's right edge, where the parent does not scroll or clip on purpose.
          const wide = Array.from(root.querySelectorAll('*')).flatMap((element) => {
            const parent = element.parentElement!;
            if (getComputedStyle(parent).overflowX !== 'visible') return [];
            const over = element.getBoundingClientRect().right - parent.getBoundingClientRect().right;
            return over > 1 ? [`${element.tagName.toLowerCase()}.${element.className} by ${Math.round(over)} px`] : [];
          });
          const axe = (
            window as unknown as {
              axe: {
                run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
              };
            }
          ).axe;
          const { violations } = await axe.run();
          return {
            height: document.documentElement.scrollHeight,
            pageWidth: document.documentElement.scrollWidth,
            wide: wide.slice(0, 5),
            serious: violations
              .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
              .map(
                (violation) =>
                  `${violation.id} (${violation.impact}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
              ),
          };
        });
        tallest = Math.max(tallest, seen.height);
        const where = `${id} at ${width} px`;
        if (seen.wide.length > 0) problems.push(`${where}: wider than its container: ${seen.wide.join(', ')}`);
        if (seen.pageWidth > width) problems.push(`${where}: the page is ${seen.pageWidth} px wide`);
        if (seen.serious.length > 0) problems.push(`${where}: axe-core: ${seen.serious.join(', ')}`);
      }
      // The tallest tab against the stacked cards: about half, and no more than 55 %.
      assert.ok(
        tallest <= stackedHeights[width]! * 0.55,
        `${tallest} px at ${width} px wide, against ${stackedHeights[width]} px stacked`,
      );
    }

    // The tabs as WAI-ARIA's pattern has them: arrows, Home and End choose and focus; the URL keeps the choice.
    await tab.setViewportSize({ width: 1440, height: 900 });
    await tab.goto(`${dash.dashboardUrl}/videos/${videoId}`);
    await tab.getByTestId('tab-settings').focus();
    await tab.keyboard.press('ArrowRight');
    assert.equal(await tab.getByTestId('tab-captions').getAttribute('aria-selected'), 'true');
    assert.equal(await tab.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'tab-captions');
    await tab.keyboard.press('End');
    await tab.getByTestId('panel-analytics').waitFor();
    assert.equal(new URL(tab.url()).searchParams.get('tab'), 'analytics');
    await tab.keyboard.press('ArrowRight');
    assert.equal(await tab.getByTestId('tab-settings').getAttribute('aria-selected'), 'true', 'round to the first');
    await tab.keyboard.press('ArrowLeft');
    await tab.reload();
    await tab.getByTestId('panel-analytics').waitFor();
    assert.equal(await tab.getByTestId('tab-analytics').getAttribute('aria-selected'), 'true');
    assert.equal(await tab.getByTestId('panel-settings').isHidden(), true);
  } finally {
    await context.close();
  }
  assert.deepEqual(problems, []);
});

test('the table narrows by search and status, the API list query', async () => {
  await page.goto(`${dash.dashboardUrl}/videos?search=${encodeURIComponent('DASHBOARD CLIP')}&status=ready`);
  await page.locator(`[data-testid=video-row][data-video-id="${videoId}"]`).waitFor();
  await page.goto(`${dash.dashboardUrl}/videos?status=failed`);
  await page.getByTestId('paging').getByText('0 videos').waitFor();
  assert.equal(await page.getByTestId('video-row').count(), 0);
});

test('the settings card renames the video, describes it, makes it private and sets its external id; the page and the table show it', async () => {
  await page.goto(`${dash.dashboardUrl}/videos/${videoId}`);
  const settings = page.getByTestId('video-settings');
  await settings.waitFor();
  await settings.getByTestId('settings-name').fill('Renamed from the dashboard');
  await settings.getByTestId('settings-public').uncheck();
  await settings.getByTestId('settings-external-id').fill('post-42');
  await settings.getByTestId('settings-description').fill('Made in the dashboard test');
  await settings.getByTestId('settings-save').click();
  await page.locator('h1', { hasText: 'Renamed from the dashboard' }).waitFor({ timeout: 30_000 });
  // The form is rebuilt from the saved values; the toast above the page still says it saved.
  await page.getByTestId('toast').filter({ hasText: 'Settings saved.' }).waitFor();
  await page.getByTestId('fact-external-id').getByText('post-42').waitFor();
  assert.equal(await page.getByTestId('fact-access').textContent(), 'Private (signed URLs)');
  assert.equal(await settings.getByTestId('settings-error').count(), 0);
  // What the API says now, not only what the page shows (asked with the page's session).
  const details = await page.evaluate(
    async (url) =>
      (
        (await (await fetch(url)).json()) as {
          body: { name: string; description?: string; allowPublicAccess: boolean; metadata?: { externalId?: string } };
        }
      ).body,
    `${dash.apiUrl}/${dash.orgId}/videos/${videoId}/details`,
  );
  assert.deepEqual(
    [details.name, details.description, details.allowPublicAccess, details.metadata],
    ['Renamed from the dashboard', 'Made in the dashboard test', false, { externalId: 'post-42' }],
  );
  await page.goto(`${dash.dashboardUrl}/videos`);
  await page
    .locator(`[data-testid=video-row][data-video-id="${videoId}"]`, { hasText: 'Renamed from the dashboard' })
    .waitFor();
});

test("a failed video's page says why it failed", async () => {
  // An MP4's opening then text: the format check takes it, the probe fails.
  const garbagePath = join(workDir, 'garbage.mp4');
  await writeFile(
    garbagePath,
    Buffer.concat([
      Buffer.from('\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2', 'latin1'),
      Buffer.from('not a single frame in here\n'.repeat(100)),
    ]),
  );
  const kino = new Kino({ apiUrl: dash.apiUrl, apiKey: dash.stack.status.devJson.apiKey });
  const { bucketPath } = await kino.uploads.upload(dash.orgId, dash.envId, garbagePath);
  failedId = (
    await kino.videos.process(dash.orgId, dash.envId, {
      storagePath: bucketPath,
      videoName: 'garbage',
      videoQuality: 'standard',
      allowPublicAccess: false,
    })
  ).videoID;
  const failed = await kino.videos
    .waitUntilReady(dash.orgId, failedId, { timeoutMs: 120_000, intervalMs: 500 })
    .catch((error: unknown) => {
      if (error instanceof VideoProcessingFailedError) return error.video;
      throw error;
    });
  assert.ok(failed.status.failed && failed.failureReason, `failed, with a reason: ${JSON.stringify(failed.status)}`);
  await page.goto(`${dash.dashboardUrl}/videos/${failedId}`);
  assert.equal(await page.getByTestId('failure-reason').textContent(), failed.failureReason);
  await page.getByTestId('video-retry').waitFor();
});

test("every page fits the window at 1280 and 390 px: nothing scrolls the page sideways, no table is wider than its container, every checkbox on its words' line", async () => {
  // A page, what shows it is drawn, and what to click first (the upload panel opens on the videos page).
  const pages: [name: string, path: string, shown: string, open?: string][] = [
    ['videos', '/videos', 'paging'],
    ['upload-panel', '/videos', 'upload-encoding-mode', 'upload-open'],
    ['video', `/videos/${videoId}`, 'delivery-links'],
    ['failed-video', `/videos/${failedId}`, 'failure-reason'],
    ['analytics', '/analytics', 'daily-chart'],
    ['keys', '/keys', 'keys-table'],
    ['environments', '/environments', 'environments-table'],
    ['webhooks', '/webhooks', 'add-webhook'],
    ['farm', '/farm', 'farm-table'],
  ];
  const overflowing: string[] = [];
  // Twenty webhooks made through the API first, then two in the page: 22, two pages of 20.
  const kino = new Kino({ apiUrl: dash.apiUrl, apiKey: dash.stack.status.devJson.apiKey });
  for (let k = 0; k < 20; k += 1)
    await kino.webhooks.create(dash.orgId, dash.envId, {
      url: `https://hooks.example.com/earlier-${k}`,
      events: ['video.processing.completed'],
    });
  // A webhook to a long URL, for every event: the longest row the webhooks table shows. Added after
  // another, it is the table's first row: the newest at the top, beside its secret.
  await page.goto(`${dash.dashboardUrl}/webhooks`);
  const longUrl = `https://hooks.example.com/kino/${'a-long-path-segment/'.repeat(6)}receive`;
  for (const url of ['https://hooks.example.com/first', longUrl]) {
    await page.getByTestId('webhook-url').fill(url);
    await page.getByTestId('add-webhook').click();
    await page.getByTestId('webhook-secret').waitFor();
    await page.getByTestId('webhooks-table').locator('tbody tr td.truncate').getByText(url).waitFor();
    if (url !== longUrl) await page.getByRole('button', { name: 'Done' }).click();
  }
  assert.equal(
    await page.getByTestId('webhooks-table').locator('tbody tr td.truncate').first().textContent(),
    longUrl,
    'the webhook just added is the first row',
  );
  // The oldest is on the second page, alone with the next oldest.
  const paging = page.getByTestId('webhooks-paging');
  assert.match((await paging.textContent()) ?? '', /Page 1 of 2 · 22 webhooks/);
  await paging.getByRole('button', { name: 'Next →' }).click();
  await page.getByTestId('webhooks-table').getByText('https://hooks.example.com/earlier-0').waitFor();
  assert.equal(await page.getByTestId('webhooks-table').locator('tbody tr td.truncate').count(), 2);
  try {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      for (const [name, path, shown, open] of pages) {
        await page.goto(`${dash.dashboardUrl}${path}`);
        if (open) await page.getByTestId(open).click();
        await page.getByTestId(shown).first().waitFor();
        const fit = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
          // What reaches past the window's right edge, to say what to fix.
          past: Array.from(document.querySelectorAll('body *'))
            .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
            .slice(0, 5)
            .map((element) => `${element.tagName.toLowerCase()}.${element.className}`),
          // Tables wider than their container, or scrolling inside themselves (nothing shows that they do).
          tables: Array.from(document.querySelectorAll('main table')).flatMap((table) => {
            const room = table.parentElement!.clientWidth;
            const wide = Math.max(table.getBoundingClientRect().width, table.scrollWidth);
            const name =
              table.getAttribute('data-testid') ?? table.closest('section')?.querySelector('h2')?.textContent;
            return wide > room + 1 ? [`table ${name}: ${Math.round(wide)} px in ${room}`] : [];
          }),
          // Checkboxes whose words are not on their line (their middles more than 3 px apart).
          adrift: Array.from(document.querySelectorAll('label')).flatMap((label) => {
            const box = label.querySelector(':scope > input[type=checkbox]');
            const words = Array.from(label.childNodes).find((node) => node.nodeType === 3 && node.textContent!.trim());
            if (!box || !words) return [];
            const range = document.createRange();
            range.selectNodeContents(words);
            const [a, b] = [box.getBoundingClientRect(), range.getBoundingClientRect()];
            const apart = Math.abs(a.top + a.height / 2 - (b.top + b.height / 2));
            return apart > 3 ? [`"${words.textContent!.trim()}" ${apart.toFixed(1)} px`] : [];
          }),
        }));
        if (fit.tables.length > 0) overflowing.push(`${path} at ${width} px: ${fit.tables.join(', ')}`);
        if (fit.adrift.length > 0)
          overflowing.push(`${path} at ${width} px: checkboxes off their words' line: ${fit.adrift.join(', ')}`);
        if (fit.scrollWidth > fit.innerWidth)
          overflowing.push(`${path} at ${width} px: ${fit.scrollWidth} px wide (${fit.past.join(', ')})`);
        if (width === 390) await dash.screenshot(page, `phone-${name}`);
      }
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
  assert.deepEqual(overflowing, []);
});

test('the analytics page shows the segments just played in its daily chart', async () => {
  const dailyTotal = async () => {
    await page.goto(`${dash.dashboardUrl}/analytics`);
    const chart = page.getByTestId('daily-chart');
    await chart.waitFor();
    return Number(await chart.getAttribute('data-total'));
  };
  // Segments reach the rollup within the delivery's ship interval and one refresh: wait until the
  // chart counts both segments of the 360p rendition that played (a 7 s clip is a 6 s and a 1 s one).
  const total = await waitFor(
    'both played segments in the daily chart',
    async () => {
      const shown = await dailyTotal();
      return shown >= 2 ? shown : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 2000 },
  );
  assert.ok(total >= 2, `${total} segments`);
  await page.getByTestId('analytics-video').selectOption(videoId);
  await page.getByTestId('video-resolution-chart').waitFor();
  await dash.screenshot(page, 'analytics');
});

test('deleting the video from its page takes it off the table', async () => {
  await page.goto(`${dash.dashboardUrl}/videos/${videoId}`);
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByTestId('video-delete').click();
  await page.getByTestId('paging').waitFor();
  assert.equal(new URL(page.url()).pathname, '/dashboard/videos');
  assert.equal(await page.locator(`[data-testid=video-row][data-video-id="${videoId}"]`).count(), 0);
  await page.goto(`${dash.dashboardUrl}/videos/${videoId}`);
  await page.getByRole('alert').getByText('does not exist or was deleted').waitFor();
});

test('a file over the multipart threshold goes from the page to storage in parts', async () => {
  // Zeros: no container, so the API's format check refuses to process what storage received,
  // which shows that the parts were joined into the object at bucketPath (no encode is spent).
  const largePath = join(workDir, 'large.mp4');
  await writeFile(largePath, Buffer.alloc(DEFAULT_MULTIPART_THRESHOLD + 1024 * 1024));
  const calls: string[] = [];
  const onRequest = (request: { method(): string; url(): string }) => {
    const url = new URL(request.url());
    if (url.pathname.includes('/uploads/multipart'))
      calls.push(`${request.method()} ${url.pathname.replace(/^.*\/uploads\/multipart/, 'multipart')}`);
    else if (request.method() === 'PUT' && url.searchParams.has('partNumber'))
      calls.push(`PUT part ${url.searchParams.get('partNumber')}`);
  };
  page.on('request', onRequest);
  try {
    await page.goto(`${dash.dashboardUrl}/videos`);
    await page.getByTestId('upload-open').click();
    await page.getByTestId('upload-file').setInputFiles(largePath);
    const error = page.getByTestId('upload-error');
    await error.or(page.getByTestId('upload-done')).waitFor({ timeout: 120_000 });
    assert.match((await error.textContent()) ?? '', /unsupported_format/);
  } finally {
    page.off('request', onRequest);
  }
  const parts = calls.filter((call) => call.startsWith('PUT part')).sort();
  assert.deepEqual(
    parts,
    ['PUT part 1', 'PUT part 2', 'PUT part 3', 'PUT part 4', 'PUT part 5'],
    'five 16 MiB parts (the last shorter)',
  );
  assert.equal(calls[0], 'POST multipart');
  assert.match(calls.at(-1) ?? '', /^POST multipart\/[^/]+\/complete$/);
});

test('a URL given to the upload panel is ingested with the encoding chosen there, and its row links to the new video', async () => {
  await page.goto(`${dash.dashboardUrl}/videos`);
  await page.getByTestId('upload-open').click();
  await page.getByTestId('upload-url').fill(`${dash.dashboardUrl}/no-such-source.mp4`);
  await page.getByTestId('upload-name').fill('Ingested from the dashboard');
  await page.getByTestId('upload-encoding-mode').selectOption('contentAware');
  await page.getByTestId('upload-codec-av1').check();
  await page.getByTestId('upload-ingest').click();
  const row = page.getByTestId('upload-row').filter({ hasText: 'no-such-source.mp4' });
  await row.getByTestId('upload-done').or(row.getByTestId('upload-error')).waitFor({ timeout: 30_000 });
  const ingestError = row.getByTestId('upload-error');
  if ((await ingestError.count()) > 0) assert.fail(`the ingest failed: ${await ingestError.textContent()}`);
  const ingestedId = (await row.locator('[data-testid=upload-done] a').textContent())!.trim();
  // What the API made of it (the fetch of this missing source fails later, which is not this test's concern).
  const details = await page.evaluate(
    async (url) => ((await (await fetch(url)).json()) as { body: VideoDetails }).body,
    `${dash.apiUrl}/${dash.orgId}/videos/${ingestedId}/details`,
  );
  assert.equal(details.name, 'Ingested from the dashboard');
  assert.deepEqual(
    [details.encodingMode, details.additionalCodecs],
    ['contentAware', ['av1']],
    'the panel sends its encoding choices',
  );
});

test('the media pages (player, storyboard tiles, charts, uploads) needed nothing the Content-Security-Policy refuses', () => {
  assert.deepEqual(cspViolations, []);
});
