// The analytics page's "Viewer experience" section in a real browser (Debian's Chromium through
// playwright-core), against the dev stack (API, its OpenID provider and the analytics store; no
// encode farm: the views are rows written into `playback_views` as the beacon fold writes them). It
// says so when no view was reported; with views, its charts draw the days and its table shows each
// browser's figures as the API computes them; axe-core finds no serious or critical violation; it
// fits a 390 px phone.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { waitFor } from '@kino/dev';
import {
  ClickHouseHttp,
  markPlaybackRollupDays,
  PLAYBACK_VIEWS_TABLE,
  refreshExperienceRollups,
} from '@kino/analytics';
import { devUser, signIn, startDashboard, type DashboardHarness } from '@kino/test/support/dashboard';

let dash: DashboardHarness;
let page: Page;
let clickhouse: ClickHouseHttp;
const range = '/analytics?from=2026-03-01&to=2026-03-03&scope=org';

beforeAll(async () => {
  dash = await startDashboard('dashboard-experience', {
    nodes: 0,
    without: ['temporal', 'orchestrator', 'delivery', 'ingest', 'speech'],
  });
  clickhouse = new ClickHouseHttp(dash.stack.env.CLICKHOUSE_URL!);
  // The API creates the analytics schema as it starts.
  await waitFor('the playback views table', () =>
    clickhouse.query(`SELECT count() FROM ${PLAYBACK_VIEWS_TABLE}`).then(
      () => true,
      () => false,
    ),
  );
  // bypassCSP: axe-core is put in by the test.
  page = await (await dash.browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true })).newPage();
  await signIn(page, dash.dashboardUrl, devUser, range);
});

afterAll(async () => {
  await clickhouse?.close();
  await dash?.stop();
});

function view(day: string, browser: string, change: Record<string, string | number>) {
  return {
    org_id: dash.orgId,
    day,
    env_id: dash.envId,
    video_id: 'vid_experience0001',
    view_id: randomUUID(),
    started_at: `${day} 10:00:00`,
    ended_at: `${day} 10:05:00`,
    browser,
    os: 'Linux',
    player_name: 'kino-player',
    player_version: '1.0.0',
    rendition_height: 720,
    play_requested: 1,
    started: 1,
    startup_ms: 400,
    watch_ms: 60_000,
    rebuffer_count: 0,
    rebuffer_ms: 0,
    failed: 0,
    error_code: '',
    version: 1,
    ...change,
  };
}

test('says there are no views yet, then charts the days and tables each browser’s figures', async () => {
  await page.getByTestId('experience-empty').waitFor();
  const views = [
    view('2026-03-01', 'Chrome', { startup_ms: 400, rebuffer_count: 2, rebuffer_ms: 1_200 }),
    view('2026-03-01', 'Chrome', { startup_ms: 900 }),
    view('2026-03-03', 'Chrome', { started: 0, startup_ms: 0, watch_ms: 0 }),
    view('2026-03-03', 'Firefox', { started: 0, startup_ms: 0, watch_ms: 0, failed: 1, error_code: 'media' }),
  ];
  await clickhouse.insert(PLAYBACK_VIEWS_TABLE, views);
  // As the fold does after its inserts; then one rollup pass now rather than the API's next.
  await markPlaybackRollupDays(clickhouse, views);
  await refreshExperienceRollups(clickhouse);
  await page.goto(`${dash.dashboardUrl}${range}`);
  assert.equal(await page.getByTestId('experience-views').getAttribute('data-views'), '4');
  await page.getByTestId('experience-startup-chart').waitFor();
  await page.getByTestId('experience-rates-chart').waitFor();
  const cells = (key: string) =>
    page
      .locator(`[data-testid=experience-table] tr[data-key="${key}"] td`)
      .evaluateAll((tds) => tds.map((td) => td.textContent!.trim()));
  await page.locator('[data-testid=experience-table] tr[data-key=Chrome]').waitFor();
  // Chrome: 3 views, startups 400 and 900 (quantileExact: 900 both), 1.2 s stalled in 120 s watched,
  // no failure, one exit of three play requests.
  assert.deepEqual(await cells('Chrome'), ['Chrome', '3', '900 ms', '900 ms', '1.00 %', '0.00 %', '33.33 %']);
  assert.deepEqual(await cells('Firefox'), ['Firefox', '1', '—', '—', '0.00 %', '100.00 %', '0.00 %']);
  await page.getByTestId('experience-grouping').selectOption('rendition');
  await page.locator('[data-testid=experience-table] tr[data-key="720"]').waitFor();
  assert.equal((await cells('720'))[1], '4');
});

test('axe-core finds no serious or critical violation on the page', async () => {
  await page.goto(`${dash.dashboardUrl}${range}`);
  await page.locator('[data-testid=experience-table] tr[data-key=Chrome]').waitFor();
  await page.addScriptTag({
    content: await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'),
  });
  const serious = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const { violations } = await axe.run();
    return violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.id} (${violation.impact}): ${violation.nodes.map((n) => n.target.join(' ')).join(', ')}`,
      );
  });
  assert.deepEqual(serious, []);
});

test('fits a 390 px phone: nothing scrolls the page sideways', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${dash.dashboardUrl}${range}`);
  await page.locator('[data-testid=experience-table] tr[data-key=Chrome]').waitFor();
  await page.getByTestId('experience-startup-chart').waitFor();
  const fit = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    past: Array.from(document.querySelectorAll('[data-testid=experience] *'))
      .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
      .slice(0, 5)
      .map((element) => `${element.tagName.toLowerCase()}.${element.className}`),
  }));
  await dash.screenshot(page, 'phone-experience');
  assert.deepEqual(fit.past, []);
  assert.ok(fit.scrollWidth <= fit.innerWidth, `${fit.scrollWidth} px wide in ${fit.innerWidth}`);
});
