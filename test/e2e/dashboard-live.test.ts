// A live stream's view in the dashboard (issue 56, item 6), in Debian's Chromium against the dev
// stack (API, ingest, Temporal, orchestrator, one encode node, delivery), signed in as the dev user:
// a private stream made on the Live page opens its own view; while a real ffmpeg publishes to it the
// view previews it in `<kino-player>` through the stream's signed URL and shows how far behind live
// the picture is (from EXT-X-PROGRAM-DATE-TIME); the broadcast is listed as a video, ready once the
// publisher stops. At 1440 and 390 px: nothing wider than the window, no serious axe-core violation;
// screenshots of both in the test output directory.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { BrowserContext, Page } from 'playwright-core';
import { devUser, signIn, startDashboard, type DashboardHarness } from '@kino/test/support/dashboard';
import { publishTestsrc } from '@kino/test/support/live-publisher';

let dash: DashboardHarness;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  dash = await startDashboard('dashboard-live', { nodes: 1, slots: 1, ingest: true });
  // axe-core is put into the page by the test, which the dashboard's CSP would refuse.
  context = await dash.browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
  page = await context.newPage();
  await signIn(page, dash.dashboardUrl, devUser, '/live');
});

afterAll(async () => {
  await context?.close();
  await dash?.stop();
});

/** What the preview's player is doing, for a failure's message. */
function playerState() {
  return page.getByTestId('live-preview').evaluate((element) => {
    const player = element as HTMLElement & { media: HTMLVideoElement; hls: { playingDate: Date | null } | null };
    return {
      currentTime: player.media.currentTime,
      readyState: player.media.readyState,
      paused: player.media.paused,
      error: player.media.error?.message,
      playingDate: String(player.hls?.playingDate),
      message: player.shadowRoot?.querySelector('.message')?.textContent,
      requested: performance
        .getEntriesByType('resource')
        .map((entry) => entry.name)
        .filter((name) => name.includes('m3u8') || name.includes('.m4s') || name.includes('.mp4')),
    };
  });
}

/** At `width`: the page no wider than the window, and axe-core's serious and critical violations. */
async function layoutProblems(width: number): Promise<string[]> {
  await page.setViewportSize({ width, height: 900 });
  const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: axeSource });
  const seen = await page.evaluate(async () => {
    type Axe = { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
    const { violations } = await (window as unknown as { axe: Axe }).axe.run();
    return {
      pageWidth: document.documentElement.scrollWidth,
      serious: violations
        .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
        .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`),
    };
  });
  return [
    ...(seen.pageWidth > width ? [`the page is ${seen.pageWidth} px wide at ${width} px`] : []),
    ...seen.serious.map((violation) => `at ${width} px: ${violation}`),
  ];
}

test('a private stream’s view previews its broadcast through its signed URL, shows how far behind live it plays, and lists the broadcast', async () => {
  await page.getByTestId('live-name').fill('Evening news');
  await page.getByTestId('create-live-stream').click();
  const card = page.locator('article', { hasText: 'Evening news' });
  await card.waitFor();
  await card.getByRole('link', { name: 'Evening news' }).click();
  await page.getByTestId('preview-idle').waitFor();
  const streamId = new URL(page.url()).pathname.split('/').pop()!;
  assert.match(streamId, /^ls_/);
  await page.getByTestId('broadcasts').getByText('No broadcasts yet.').waitFor();

  // Its broadcast ends as the publisher stops (no reconnect window), so the recording follows at once.
  const stream = await page.evaluate(async (path) => {
    const session = await fetch('/dashboard/api/session', { credentials: 'same-origin' });
    const { csrfToken } = ((await session.json()) as { body: { csrfToken: string } }).body;
    const response = await fetch(path, {
      method: 'PATCH',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrfToken },
      body: JSON.stringify({ reconnectWindowSeconds: 0 }),
    });
    return ((await response.json()) as { body: { streamKey: string; ingest: { rtmp: string } } }).body;
  }, `/v1/api/${dash.orgId}/live-streams/${streamId}`);
  const publishing = publishTestsrc(`${stream.ingest.rtmp}/${stream.streamKey}`, 30, { size: '320x180' });
  try {
    // The view reads the stream every 5 s: it turns active, and the preview plays the stream's own
    // private path with a token bound to the stream.
    const preview = page.getByTestId('live-preview');
    await preview.waitFor({ timeout: 30_000 });
    assert.match(
      (await preview.getAttribute('src')) ?? '',
      new RegExp(`/v1/private/${streamId}/master\\.m3u8\\?token=`),
    );
    const latency = page.getByTestId('live-latency');
    await page
      .waitForFunction(
        // The element present (the view drops it once the broadcast ends) and a figure in it.
        () => (document.querySelector('[data-testid=live-latency]')?.getAttribute('data-seconds') ?? '') !== '',
        undefined,
        { timeout: 45_000, polling: 250 },
      )
      .catch(async (error: unknown) => {
        await dash.screenshot(page, 'live-stream-no-latency');
        throw new Error(`no latency shown; the player: ${JSON.stringify(await playerState())}`, { cause: error });
      });
    const behind = Number(await latency.getAttribute('data-seconds'));
    // A 6 s segment is whole before it is listed, and the player starts a few segments back from the live edge.
    assert.ok(behind > 1 && behind < 40, `${behind} s behind live`);
    assert.match((await latency.textContent()) ?? '', /Behind live: \d+\.\d s/);
    // The picture moves: the player's time advances.
    const played = () =>
      preview.evaluate((element) => (element as HTMLElement & { media: HTMLVideoElement }).media.currentTime);
    const first = await played();
    await page.waitForFunction(
      (since) => {
        const element = document.querySelector('[data-testid=live-preview]') as HTMLElement & {
          media: HTMLVideoElement;
        };
        return element.media.currentTime > since + 1;
      },
      first,
      { timeout: 15_000, polling: 250 },
    );
    // The broadcast, listed while it runs.
    await page.getByTestId('broadcast-row').first().waitFor({ timeout: 10_000 });

    const problems: string[] = [];
    for (const width of [1440, 390]) {
      problems.push(...(await layoutProblems(width)));
      await dash.screenshot(page, `live-stream-${width}`);
    }
    assert.deepEqual(problems, []);
  } finally {
    const published = await publishing;
    assert.equal(published.exitCode, 0, published.stderr);
  }

  // The publisher gone: idle again, and its broadcast a ready video, linked to its page.
  await page.getByTestId('preview-idle').waitFor({ timeout: 30_000 });
  const row = page.getByTestId('broadcast-row');
  assert.equal(await row.count(), 1);
  await row.locator('[data-status=ready]').waitFor({ timeout: 60_000 });
  const videoId = await row.getAttribute('data-video-id');
  assert.equal(await row.getByRole('link').getAttribute('href'), `/dashboard/videos/${videoId}`);
});
