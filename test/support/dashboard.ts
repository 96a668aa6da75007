// The dashboard in a real browser, for the browser tests of issue #12: a test stack started by the
// dev stack's launcher (with its OpenID provider), Debian's Chromium through playwright-core,
// sign-in through the dev provider's login page, and screenshots saved where a person can look at
// them (.kino/test-output/dashboard/<file>/<name>.png).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { repoRoot } from '@kino/infra';
import type { DevIdentityUser } from '@kino/dev';
import { startTestStack, type TestStack } from './stack.ts';

export { devUser, outsiderUser } from '@kino/dev/stack';

export interface DashboardHarness {
  stack: TestStack;
  /** `http://127.0.0.1:<port>/dashboard` */
  dashboardUrl: string;
  /** `http://127.0.0.1:<port>/v1/api` */
  apiUrl: string;
  orgId: string;
  envId: string;
  browser: Browser;
  /** A fresh browser profile (its own cookies): one per user. */
  newContext(): Promise<BrowserContext>;
  /** Saves a PNG of the whole page under the test output directory; returns its path. */
  screenshot(page: Page, name: string): Promise<string>;
  stop(): Promise<void>;
}

/** Where screenshots go: one directory per test file. */
export function dashboardOutputDir(testName: string): string {
  return join(repoRoot, '.kino', 'test-output', 'dashboard', testName);
}

/**
 * Starts a stack (default: the lean one, API and services only; pass the parts a test needs) and
 * Chromium. Stop it in afterAll.
 */
export async function startDashboard(
  testName: string,
  options: Parameters<typeof startTestStack>[0] = {},
): Promise<DashboardHarness> {
  const stack = await startTestStack(options);
  const outputDir = dashboardOutputDir(testName);
  mkdirSync(outputDir, { recursive: true });
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--autoplay-policy=no-user-gesture-required',
      ],
    });
  } catch (error) {
    await stack.stop();
    throw error;
  }
  const { devJson } = stack.status;
  return {
    stack,
    dashboardUrl: devJson.dashboardUrl,
    apiUrl: devJson.apiUrl,
    orgId: devJson.orgId,
    envId: devJson.envId,
    browser,
    newContext: () => browser.newContext({ viewport: { width: 1280, height: 800 } }),
    async screenshot(page, name) {
      const path = join(outputDir, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async stop() {
      await browser.close().catch(() => undefined);
      await stack.stop();
    },
  };
}

/**
 * Signs a user in through the dev provider's login page, starting at a dashboard page (default the
 * videos page), and waits until the dashboard shows the user.
 */
export async function signIn(page: Page, dashboardUrl: string, user: DevIdentityUser, path = '/videos'): Promise<void> {
  await page.goto(`${dashboardUrl}${path}`);
  // Not signed in: the dashboard sends the browser to the provider's login page.
  await page.locator('input[name=email]').fill(user.email);
  await page.locator('input[name=password]').fill(user.password);
  await page.locator('button[type=submit]').click();
  await page.getByTestId('user').filter({ hasText: user.email }).waitFor();
}
