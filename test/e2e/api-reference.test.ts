// The API's reference page in a real browser (issue #33 item 4): Debian's Chromium opens
// /v1/api/docs of a real `kino api` and sees the operations of the API's own OpenAPI document
// rendered, with no console error (a script or style the page's Content-Security-Policy refused
// would log one) and no request to any origin but the API's: the renderer's script, its styles and
// the document all come from the API. A screenshot goes to .kino/test-output/api-reference/.
import { afterAll, beforeAll, onTestFailed, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { repoRoot } from '@kino/infra';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { startApiHarness, type ApiHarness } from '../api/harness.ts';

let services: TestServices;
let api: ApiHarness;
let apiOrigin: string;
let browser: Browser;

beforeAll(async () => {
  services = await startTestServices({ postgres: true });
  api = await startApiHarness(services);
  await api.app.listen({ host: '127.0.0.1', port: 0 });
  apiOrigin = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await services?.stop();
});

test('GET /v1/api/docs renders the OpenAPI document with assets from the API alone', async () => {
  const page = await browser.newPage();
  const consoleErrors: string[] = [];
  const elsewhere: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  // A console error names no URL for a failed load: this does.
  page.on('response', (response) => {
    if (response.status() >= 400) consoleErrors.push(`${response.status()} ${response.url()}`);
  });
  // Told at once, so a page that never renders still says why.
  onTestFailed(() => console.error('console errors:', consoleErrors, 'requests elsewhere:', elsewhere));
  page.on('request', (request) => {
    const url = new URL(request.url());
    // data: and blob: URLs are the page's own; every network request must be to the API.
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== apiOrigin)
      elsewhere.push(request.url());
  });

  const response = await page.goto(`${apiOrigin}/v1/api/docs`);
  assert.equal(response?.status(), 200);
  const policy = response!.headers()['content-security-policy'] ?? '';
  assert.match(policy, /script-src 'self'(;|$)/);
  assert.match(policy, /connect-src 'self'(;|$)/);

  // The document the page fetched from the API, rendered: its title, an operation's summary in the
  // operation list, and its description.
  const outputDir = join(repoRoot, '.kino/test-output/api-reference');
  mkdirSync(outputDir, { recursive: true });
  try {
    await page.getByRole('heading', { name: 'Kino API' }).waitFor({ timeout: 60_000 });
    await page.getByText('Service status').first().waitFor();
    await page.getByText('Checks the database, Temporal, object storage and analytics.').first().waitFor();
  } finally {
    await page.screenshot({ path: join(outputDir, 'docs.png') });
  }

  assert.deepEqual(consoleErrors, [], 'no console errors');
  assert.deepEqual(elsewhere, [], `no request outside ${apiOrigin}`);
  await page.close();
});
