// The dashboard's sign-in and API keys in a real browser (issue #12): Debian's Chromium signs in
// through the dev stack's OpenID provider, creates a key on the keys page and a real `curl` uses it
// against the API; revoked, the API refuses it. A signed-in user who is not a member is refused, a
// forged POST (from a page of another origin, or carrying the cookie without the CSRF token) is
// refused, a session refreshes its tokens and ends when the provider refuses a refresh. A tab open
// on a transcoding video stays quiet, spends none of the API keys' budget and hears changes live; a
// 429 reads plainly and is asked again only after Retry-After (issue 59). Screenshots of each page go
// to .kino/test-output/dashboard/dashboard-auth/.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { announceVideoEvent, openDatabase, type Db } from '@kino/database';
import {
  createApiKey,
  createNodeCredential,
  createVideo,
  markVideoFailed,
  registerNode,
} from '@kino/database/repositories';
import { newId } from '@kino/infra';
import { defaultEncodingParameters } from '@kino/proto/contract';
import { devUser, outsiderUser, signIn, startDashboard, type DashboardHarness } from '@kino/test/support/dashboard';
import { waitFor } from '@kino/dev';

const execFileAsync = promisify(execFile);

/** A real curl: status and body. */
async function curl(url: string, apiKey: string): Promise<{ status: number; body: string }> {
  const { stdout } = await execFileAsync('curl', ['-sS', '-H', `X-Api-Key: ${apiKey}`, '-w', '\n%{http_code}', url]);
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
}

/** A fetch from inside the page (its cookies, its origin), returning status and envelope. */
async function fetchInPage(
  page: Page,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  return page.evaluate(
    async ({ path, init }) => {
      const response = await fetch(path, { ...init, credentials: 'same-origin' });
      return {
        status: response.status,
        rateLimit: response.headers.get('X-RateLimit-Limit'),
        json: (await response.json().catch(() => null)) as { code?: string; body?: unknown } | null,
      };
    },
    { path, init },
  );
}

let dash: DashboardHarness;
let db: Db;
let devContext: BrowserContext;
let devPage: Page;

beforeAll(async () => {
  dash = await startDashboard('dashboard-auth', {
    without: ['temporal', 'orchestrator', 'delivery'],
    nodes: 0,
    analytics: 'none',
  });
  db = await openDatabase(dash.stack.env.DATABASE_URL!);
  devContext = await dash.newContext();
  devPage = await devContext.newPage();
});

afterAll(async () => {
  await db?.destroy();
  await dash?.stop();
});

describe('dashboard sign-in and API keys', () => {
  it('signs the dev user in through the dev OpenID provider, with a safe session cookie', async () => {
    await signIn(devPage, dash.dashboardUrl, devUser, '/keys');
    assert.equal(new URL(devPage.url()).pathname, '/dashboard/keys');
    await devPage.getByTestId('keys-table').waitFor();
    const cookie = (await devContext.cookies()).find((c) => c.name === 'kino_session');
    assert.ok(cookie, 'the session cookie is set');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Lax');
    // The cookie is an opaque id: the database keeps only its hash.
    const stored = await db.selectFrom('dashboard_sessions').select(['id_hash', 'email']).execute();
    assert.ok(stored.some((s) => s.email === devUser.email));
    assert.ok(stored.every((s) => s.id_hash !== cookie.value));
    await dash.screenshot(devPage, 'keys');
  });

  it('creates a key shown once; curl uses it; revoked, the API refuses it', async () => {
    await devPage.getByTestId('key-type').selectOption('full');
    await devPage.getByTestId('create-key').click();
    const apiKey = (await devPage.getByTestId('new-key').textContent())!.trim();
    assert.match(apiKey, /^svc_test_[A-Za-z0-9]{32}$/);
    await dash.screenshot(devPage, 'keys-created');

    const listed = await curl(`${dash.apiUrl}/${dash.orgId}/environments`, apiKey);
    assert.equal(listed.status, 200, listed.body);
    assert.ok(
      (JSON.parse(listed.body) as { body: { environments: { id: string }[] } }).body.environments.some(
        (e) => e.id === dash.envId,
      ),
    );

    // Shown once: not in the page after a reload, nor in anything the browser stores.
    await devPage.reload();
    await devPage.getByTestId('keys-table').waitFor();
    assert.equal(await devPage.getByTestId('new-key').count(), 0);
    const stored = await devPage.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie,
    );
    assert.ok(!stored.includes(apiKey), 'the browser keeps no copy of the key');
    // The table's frame comes before its rows (they follow the list call): wait for the key's row.
    const prefix = await waitFor('the list to show the key by its prefix', async () => {
      const prefixes = await devPage
        .locator('tr[data-prefix]')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-prefix')!));
      return prefixes.find((p) => apiKey.startsWith(p));
    });
    const row = devPage.locator(`tr[data-prefix="${prefix}"]`);

    devPage.once('dialog', (dialog) => void dialog.accept());
    await row.getByTestId('revoke-key').click();
    await row.getByTestId('key-status').filter({ hasText: 'revoked' }).waitFor();
    await dash.screenshot(devPage, 'keys-revoked');

    // A key revoked while its secret is still on the page: the secret's box goes with it.
    await devPage.getByTestId('create-key').click();
    const second = (await devPage.getByTestId('new-key').textContent())!.trim();
    const secondRow = devPage.locator(`tr[data-prefix="${second.slice(0, prefix.length)}"]`);
    devPage.once('dialog', (dialog) => void dialog.accept());
    await secondRow.getByTestId('revoke-key').click();
    await secondRow.getByTestId('key-status').filter({ hasText: 'revoked' }).waitFor();
    await devPage.getByTestId('new-key').waitFor({ state: 'detached' });

    const refused = await curl(`${dash.apiUrl}/${dash.orgId}/environments`, apiKey);
    assert.equal(refused.status, 401, refused.body);
    assert.equal((JSON.parse(refused.body) as { code: string }).code, 'unauthorized');
  });

  it('refuses a signed-in user who is not a member of the organization', async () => {
    const context = await dash.newContext();
    try {
      const page = await context.newPage();
      await signIn(page, dash.dashboardUrl, outsiderUser);
      await page.getByTestId('not-member').waitFor();
      await dash.screenshot(page, 'not-a-member');
      const environments = await fetchInPage(page, `/v1/api/${dash.orgId}/environments`);
      assert.equal(environments.status, 403);
      assert.equal(environments.json?.code, 'not_a_member');
      const keys = await fetchInPage(page, `/dashboard/api/${dash.orgId}/keys`);
      assert.equal(keys.status, 403);
      assert.equal(keys.json?.code, 'not_a_member');
    } finally {
      await context.close();
    }
  });

  it('refuses a forged POST: from a page of another origin, and with the cookie but no CSRF token', async () => {
    const keysBefore = await db.selectFrom('api_keys').select('id').where('org_id', '=', dash.orgId).execute();
    // Another origin on the same host (so SameSite=Lax lets the cookie go): its page posts a form
    // to the dashboard's key route as soon as it loads.
    const target = `${dash.dashboardUrl}/api/${dash.orgId}/keys`;
    const attacker: Server = createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(`<!doctype html><form id="f" method="post" action="${target}" enctype="text/plain">
<input name='{"type":"full","x":"' value='"}'></form><script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    try {
      const forged = devPage.waitForResponse(
        (response) => response.url() === target && response.request().method() === 'POST',
      );
      await devPage.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
      const response = await forged;
      assert.equal(response.status(), 403);
      assert.equal(((await response.json()) as { code: string }).code, 'csrf_token_invalid');
    } finally {
      attacker.closeAllConnections();
      await new Promise((resolve) => attacker.close(resolve));
    }

    await devPage.goto(`${dash.dashboardUrl}/keys`);
    await devPage.getByTestId('keys-table').waitFor();
    const body = JSON.stringify({ type: 'full' });
    const headers = { 'Content-Type': 'application/json' };
    const withoutToken = await fetchInPage(devPage, `/dashboard/api/${dash.orgId}/keys`, {
      method: 'POST',
      headers,
      body,
    });
    assert.equal(withoutToken.status, 403);
    assert.equal(withoutToken.json?.code, 'csrf_token_invalid');
    const wrongToken = await fetchInPage(devPage, `/dashboard/api/${dash.orgId}/keys`, {
      method: 'POST',
      headers: { ...headers, 'X-CSRF-Token': 'forged' },
      body,
    });
    assert.equal(wrongToken.status, 403);
    // The ordinary API too: a session's POST there needs the token as well.
    const apiPost = await fetchInPage(devPage, `/v1/api/${dash.orgId}/environments/${dash.envId}/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: 'https://example.com/hook' }),
    });
    assert.equal(apiPost.status, 403);
    assert.equal(apiPost.json?.code, 'csrf_token_invalid');
    const keysAfter = await db.selectFrom('api_keys').select('id').where('org_id', '=', dash.orgId).execute();
    assert.equal(keysAfter.length, keysBefore.length, 'no forged request made a key');

    // The same request with the session's token goes through: the token is what was missing.
    const session = await fetchInPage(devPage, '/dashboard/api/session');
    const csrfToken = (session.json?.body as { csrfToken: string }).csrfToken;
    const genuine = await fetchInPage(devPage, `/dashboard/api/${dash.orgId}/keys`, {
      method: 'POST',
      headers: { ...headers, 'X-CSRF-Token': csrfToken },
      body,
    });
    assert.equal(genuine.status, 201);
    // Creating a key counts against the API key operations limit (20 per hour); listing keys does not.
    assert.equal(genuine.rateLimit, '20');
    assert.equal((await fetchInPage(devPage, `/dashboard/api/${dash.orgId}/keys`)).rateLimit, '10000');
  });

  it('creates an environment and sets its just-in-time segments, adds a webhook (its secret shown once) and removes it, drains a node on the farm page', async () => {
    await devPage.goto(`${dash.dashboardUrl}/environments`);
    await devPage.getByTestId('env-name').fill('staging');
    await devPage.getByTestId('create-env').click();
    await devPage.getByTestId('environments-table').getByText('staging').waitFor();
    const staging = await db
      .selectFrom('environments')
      .selectAll()
      .where('org_id', '=', dash.orgId)
      .where('name', '=', 'staging')
      .executeTakeFirst();
    assert.ok(staging, 'the environment exists');
    // The new environment becomes the current one once the session (which the pickers list) is read again.
    await devPage.getByTestId('env-picker').locator(`option[value="${staging.id}"]`).waitFor({ state: 'attached' });
    await devPage.waitForFunction(
      (id) => (document.querySelector('[data-testid=env-picker]') as HTMLSelectElement | null)?.value === id,
      staging.id,
    );
    await dash.screenshot(devPage, 'environments');

    // Just-in-time segments: the farm's default until set; Off goes to the API, and the list reads it back.
    const justInTime = () =>
      devPage.getByTestId('environments-table').locator('tr', { hasText: staging.id }).getByTestId('env-just-in-time');
    assert.equal(await justInTime().inputValue(), '');
    const patched = devPage.waitForResponse(
      (r) => r.request().method() === 'PATCH' && r.url().endsWith(`/environments/${staging.id}`),
    );
    await justInTime().selectOption('off');
    assert.equal((await patched).status(), 200);
    const setting = await db
      .selectFrom('environments')
      .select('just_in_time')
      .where('id', '=', staging.id)
      .executeTakeFirstOrThrow();
    assert.equal(setting.just_in_time, false);
    await devPage.reload();
    await justInTime().waitFor();
    assert.equal(await justInTime().inputValue(), 'off');

    await devPage.getByRole('link', { name: 'Webhooks' }).click();
    // A new environment has none: the page says what they are for and the command that adds one.
    await devPage.getByTestId('empty-state').filter({ hasText: 'kino webhooks add https://' }).waitFor();
    await devPage.getByTestId('webhook-url').fill('https://example.com/hooks/kino');
    await devPage.getByTestId('add-webhook').click();
    const secret = (await devPage.getByTestId('webhook-secret').textContent())!.trim();
    assert.match(secret, /^whsec_/);
    const row = devPage.getByTestId('webhooks-table').locator('tr', { hasText: 'https://example.com/hooks/kino' });
    await row.waitFor();
    await dash.screenshot(devPage, 'webhooks');
    const stored = await db.selectFrom('webhooks').selectAll().where('env_id', '=', staging.id).execute();
    assert.deepEqual(
      stored.map((w) => w.url),
      ['https://example.com/hooks/kino'],
    );
    // Its delivery log: a test event is one logged attempt (nothing answers at example.com here: the
    // row shows why), and Redeliver sends that message again as attempt 2.
    await row.getByTestId('show-deliveries').click();
    const log = devPage.getByTestId('delivery-log');
    await log.getByTestId('send-test').click();
    const logRows = log.getByTestId('deliveries-table').locator('tbody tr');
    await logRows.first().waitFor();
    assert.match((await logRows.first().textContent()) ?? '', /webhook\.test/);
    await logRows.first().getByTestId('redeliver').click();
    await logRows.nth(1).waitFor();
    const attempts = await db
      .selectFrom('webhook_deliveries')
      .select(['event', 'attempt', 'message_id'])
      .where('webhook_id', '=', stored[0]!.id)
      .orderBy('attempt')
      .execute();
    assert.deepEqual(
      attempts.map((d) => [d.event, d.attempt]),
      [
        ['webhook.test', 1],
        ['webhook.test', 2],
      ],
    );
    assert.equal(attempts[0]!.message_id, attempts[1]!.message_id);
    await dash.screenshot(devPage, 'webhook-deliveries');
    devPage.once('dialog', (dialog) => void dialog.accept());
    await row.getByTestId('remove-webhook').click();
    await row.waitFor({ state: 'detached' });

    // A node as the registry records it (this stack runs no orchestrator): the page drains and undrains it.
    const node = await registerNode(db, {
      address: '127.0.0.1:65001',
      slots: 2,
      version: 'test',
      labels: { name: 'node-x' },
    });
    await devPage.getByRole('link', { name: 'Farm' }).click();
    const nodeRow = devPage.getByTestId(`node-${node.id}`);
    await nodeRow.getByTestId('drain-node').click();
    await nodeRow.getByTestId('node-state').filter({ hasText: 'draining' }).waitFor();
    await dash.screenshot(devPage, 'farm');
    assert.ok(
      (
        await db
          .selectFrom('encode_nodes')
          .select('drain_requested_at')
          .where('id', '=', node.id)
          .executeTakeFirstOrThrow()
      ).drain_requested_at,
    );
    await nodeRow.getByTestId('undrain-node').click();
    await nodeRow.getByTestId('node-state').filter({ hasText: 'active' }).waitFor();

    // The farm is for operators: the outsider's session is refused it.
    const context = await dash.newContext();
    try {
      const page = await context.newPage();
      await signIn(page, dash.dashboardUrl, outsiderUser);
      const farm = await fetchInPage(page, '/dashboard/api/farm/nodes');
      assert.equal(farm.status, 403);
    } finally {
      await context.close();
    }
  });

  it('revokes an enrolled node on the farm page: nothing until confirmed, then its credential for good and the node gone', async () => {
    // A node enrolled and connected as the registry records them (this stack runs no orchestrator).
    const credential = await createNodeCredential(db, {
      name: 'node-revoked',
      labels: {},
      tokenHash: `test-${Date.now()}`,
      tokenValidSeconds: 3600,
    });
    await registerNode(db, {
      nodeId: credential.node_id,
      address: 'relay:127.0.0.1:65002',
      slots: 1,
      version: 'test',
      labels: {},
    });
    const revokedAt = async () =>
      (
        await db
          .selectFrom('node_credentials')
          .select('revoked_at')
          .where('node_id', '=', credential.node_id)
          .executeTakeFirstOrThrow()
      ).revoked_at;
    await devPage.goto(`${dash.dashboardUrl}/farm`);
    const nodeRow = devPage.getByTestId(`node-${credential.node_id}`);
    await nodeRow.getByTestId('node-state').filter({ hasText: 'active' }).waitFor();
    // Dismissed: nothing is revoked.
    const dismissed = new Promise<string>((resolve) =>
      devPage.once('dialog', (dialog) => {
        resolve(dialog.message());
        void dialog.dismiss();
      }),
    );
    await nodeRow.getByTestId('revoke-node').click();
    assert.match(
      await dismissed,
      new RegExp(`Revoke ${credential.node_id}\\? Its credential will never work again\\.`),
    );
    assert.equal(await revokedAt(), null, 'a dismissed confirmation revokes nothing');
    // Confirmed: revoked, and the row shows the node gone, with no Drain button left.
    devPage.once('dialog', (dialog) => void dialog.accept());
    await nodeRow.getByTestId('revoke-node').click();
    await nodeRow.getByTestId('node-state').filter({ hasText: 'gone' }).waitFor();
    assert.ok(await revokedAt(), 'the credential is revoked');
    assert.equal(await nodeRow.getByTestId('drain-node').count(), 0);
    await dash.screenshot(devPage, 'farm-revoked');
  });

  it('creates a live stream and shows what an encoder needs; resets its key, disables, enables and deletes it', async () => {
    await devPage.goto(`${dash.dashboardUrl}/live`);
    await devPage.getByTestId('live-name').fill('Sunday service');
    await devPage.getByTestId('live-public').check();
    await devPage.getByTestId('create-live-stream').click();
    const card = devPage.locator('article', { hasText: 'Sunday service' });
    await card.waitFor();
    const row = await db
      .selectFrom('live_streams')
      .selectAll()
      .where('name', '=', 'Sunday service')
      .executeTakeFirstOrThrow();
    const read = () => fetchInPage(devPage, `/v1/api/${dash.orgId}/live-streams/${row.id}`);
    const stream = (await read()).json!.body as { streamKey: string; ingest: { rtmp: string; srt: string } };
    // The server and key OBS asks for, the key hidden until shown; where it plays.
    assert.equal((await card.getByTestId('rtmp-url').textContent())?.trim(), stream.ingest.rtmp);
    assert.doesNotMatch((await card.getByTestId('stream-key').textContent()) ?? '', /sk_/);
    await card.getByRole('button', { name: 'Show Stream key' }).click();
    assert.equal((await card.getByTestId('stream-key').textContent())?.trim(), stream.streamKey);
    assert.match((await card.getByTestId('playback-url').textContent()) ?? '', new RegExp(`/${row.id}/master\\.m3u8$`));
    await dash.screenshot(devPage, 'live');

    await card.getByTestId('reset-key').click();
    await card.getByTestId('stream-key').filter({ hasNotText: stream.streamKey }).waitFor();
    const reset = (await read()).json!.body as { streamKey: string };
    assert.notEqual(reset.streamKey, stream.streamKey);
    assert.equal((await card.getByTestId('stream-key').textContent())?.trim(), reset.streamKey);

    await card.getByTestId('toggle-stream').click();
    await card.getByText('disabled', { exact: true }).waitFor();
    assert.ok(
      (await db.selectFrom('live_streams').select('disabled_at').where('id', '=', row.id).executeTakeFirstOrThrow())
        .disabled_at,
    );
    await card.getByTestId('toggle-stream').click();
    await card.getByText('idle', { exact: true }).waitFor();

    devPage.once('dialog', (dialog) => void dialog.accept());
    await card.getByTestId('delete-stream').click();
    await card.waitFor({ state: 'detached' });
    assert.equal(
      await db.selectFrom('live_streams').select('id').where('id', '=', row.id).executeTakeFirst(),
      undefined,
    );
  });

  it('sends a Content-Security-Policy that allows only its own files (an injected inline script does not run)', async () => {
    const response = await devPage.goto(`${dash.dashboardUrl}/keys`);
    const csp = (await response!.allHeaders())['content-security-policy'] ?? '';
    const directives = Object.fromEntries(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values]),
    );
    assert.deepEqual(directives['script-src'], ["'self'"]);
    assert.deepEqual(directives['default-src'], ["'self'"]);
    assert.deepEqual(directives['frame-ancestors'], ["'none'"]);
    assert.ok(
      directives['connect-src']?.includes(new URL(dash.stack.env.DELIVERY_URL!).origin),
      'the player may reach delivery',
    );
    await devPage.getByTestId('keys-table').waitFor();
    const violations: string[] = [];
    devPage.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const injectedRan = await devPage.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.injected = true';
      document.body.append(script);
      return (window as unknown as { injected?: boolean }).injected === true;
    });
    assert.equal(injectedRan, false, 'an inline script is refused');
    // The dashboard's own pages need nothing the policy refuses.
    violations.length = 0;
    for (const path of ['/keys', '/environments', '/webhooks', '/farm']) {
      await devPage.goto(`${dash.dashboardUrl}${path}`);
      await devPage.locator('main h1').waitFor();
    }
    assert.deepEqual(violations, []);
  });

  /** A video left in `transcoding` (this stack has no farm): what a tab would watch for a long time. */
  async function transcodingVideo(name: string): Promise<string> {
    const id = newId('vid');
    await createVideo(db, {
      id,
      orgId: dash.orgId,
      envId: dash.envId,
      name,
      storagePath: `uploads/${dash.orgId}/${dash.envId}/${id}/source.mp4`,
      videoQuality: 'high',
      allowPublicAccess: true,
      parameters: defaultEncodingParameters,
    });
    return id;
  }

  it("keeps a tab open on a transcoding video to a few requests, none of them against the API keys' budget, and shows its changes live", async () => {
    const { apiKey } = await createApiKey(db, { orgId: dash.orgId, type: 'full', live: false });
    const videoId = await transcodingVideo('watched');
    const detailsUrl = `${dash.apiUrl}/${dash.orgId}/videos/${videoId}/details`;
    // What the organization's keys have left of the video budget the details count against, in
    // which window (the windows are fixed: a new one starts on the hour).
    const keysBudget = async () => {
      const response = await fetch(detailsUrl, { headers: { 'X-Api-Key': apiKey } });
      await response.arrayBuffer();
      assert.equal(response.status, 200);
      const header = (name: string) => Number(response.headers.get(`x-ratelimit-${name}`));
      return { limit: header('limit'), remaining: header('remaining'), reset: header('reset') };
    };
    const before = await keysBudget();

    const page = await devContext.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(new URL(request.url()).pathname));
    try {
      await page.goto(`${dash.dashboardUrl}/videos/${videoId}`);
      await page.locator('[data-testid=video-page] [data-testid=video-status][data-status=transcoding]').waitFor();
      await waitFor('the live updates to connect', async () => requests.some((path) => path.endsWith('/events')));
      const loaded = requests.length;
      // The page at rest: it used to ask for the details every 3 s (4 times in this window).
      // Watching a quiet page is the measurement itself, so this waits a fixed time.
      const quietMs = 12_000;
      await new Promise((resolve) => setTimeout(resolve, quietMs));
      const atRest = requests.slice(loaded);
      assert.ok(atRest.length <= 1, `requests in ${quietMs / 1000} s at rest: ${atRest.join(' ')}`);
      // The page's requests, loading included, spent the member's budget: the keys' lost only this file's two reads.
      // Across the hour (session 38: the test ran across 09:00) the new window holds only
      // what was spent since, that read among it.
      const after = await keysBudget();
      const spent = after.reset === before.reset ? before.remaining - after.remaining : after.limit - after.remaining;
      assert.equal(spent, 1, 'only the key itself spent the keys’ budget');

      // A change made through the API with a key reaches the open page as an event (no timer would show it).
      const renamed = await fetch(`${dash.apiUrl}/${dash.orgId}/videos/${videoId}`, {
        method: 'PATCH',
        headers: { 'X-Api-Key': apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ videoName: 'renamed while watched' }),
      });
      assert.equal(renamed.status, 200, await renamed.text());
      await page
        .locator('[data-testid=video-page] h1')
        .filter({ hasText: 'renamed while watched' })
        .waitFor({ timeout: 10_000 });
      // The status change as the orchestrator makes it: the row, then the announcement its delivery workflow makes.
      await markVideoFailed(db, videoId, 'the source has no video stream');
      await announceVideoEvent(db, { event: 'video.processing.failed', videoId, timestamp: new Date().toISOString() });
      await page
        .locator('[data-testid=video-page] [data-testid=video-status][data-status=failed]')
        .waitFor({ timeout: 10_000 });
      await dash.screenshot(page, 'video-live-update');
    } finally {
      await page.close();
    }
  });

  it('says plainly when the member’s limit is hit, and asks again only once the limit’s window ends (Retry-After)', async () => {
    const videoId = await transcodingVideo('limited');
    const { subject } = await db
      .selectFrom('dashboard_sessions')
      .select('subject')
      .where('email', '=', devUser.email)
      .executeTakeFirstOrThrow();
    // The member's video window of this hour, spent (as a busy member would have spent it).
    const counter = {
      scope: `member:${dash.orgId}:${subject}:video:3600`,
      window_start: new Date(Math.floor(Date.now() / 3600_000) * 3600_000),
    };
    await db
      .insertInto('rate_limit_counters')
      .values({ ...counter, count: 1_000_000 })
      .onConflict((oc) => oc.columns(['scope', 'window_start']).doUpdateSet({ count: 1_000_000 }))
      .execute();

    const page = await devContext.newPage();
    // The page's timers run on a clock the test moves: an hour's window passes in a moment.
    await page.clock.install();
    const detailsAsked: number[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith(`/videos/${videoId}/details`)) detailsAsked.push(Date.now());
    });
    try {
      const refused = page.waitForResponse((response) => response.url().endsWith(`/videos/${videoId}/details`));
      await page.goto(`${dash.dashboardUrl}/videos/${videoId}`);
      const retryAfter = Number((await refused).headers()['retry-after']);
      assert.ok(retryAfter >= 1, 'a 429 with Retry-After');
      const note = page.locator('[data-testid=video-error][data-rate-limited]');
      await note.waitFor({ timeout: 5_000 });
      const text = (await note.textContent())!;
      assert.match(text, /reached its request limit/);
      assert.match(text, /API keys .* not affected/);
      assert.doesNotMatch(text, /429|rate_limit_exceeded/);
      await dash.screenshot(page, 'video-rate-limited');
      // No retry before the window ends: three quick retries would only spend more of it.
      assert.equal(detailsAsked.length, 1);
      if (retryAfter > 2) await page.clock.fastForward((retryAfter - 2) * 1000);
      assert.equal(detailsAsked.length, 1, 'asked again before Retry-After');

      // The window ends: the page asks again by itself and shows the video.
      await db
        .deleteFrom('rate_limit_counters')
        .where('scope', '=', counter.scope)
        .where('window_start', '=', counter.window_start)
        .execute();
      await page.clock.fastForward(5_000);
      await page.locator('[data-testid=video-page] [data-testid=video-status][data-status=transcoding]').waitFor();
      assert.equal(detailsAsked.length, 2);
    } finally {
      await page.close();
    }
  });

  it('refreshes a session before its access token expires and ends it when the provider refuses a refresh', async () => {
    const sessionRow = () =>
      db.selectFrom('dashboard_sessions').selectAll().where('email', '=', devUser.email).executeTakeFirst();
    const before = (await sessionRow())!;
    // As if the access token were about to expire: the next request refreshes it.
    await db
      .updateTable('dashboard_sessions')
      .set({ access_expires_at: new Date(Date.now() + 5_000) })
      .where('id_hash', '=', before.id_hash)
      .execute();
    assert.equal((await fetchInPage(devPage, '/dashboard/api/session')).status, 200);
    const refreshed = (await sessionRow())!;
    assert.notEqual(refreshed.access_token, before.access_token);
    assert.ok(refreshed.access_expires_at.getTime() > Date.now() + 60_000);

    // The provider revokes the user's grant (an administrator disabled them): the next refresh is refused.
    await dash.stack.launcher.identityProvider.revokeUser(devUser.email);
    await db
      .updateTable('dashboard_sessions')
      .set({ access_expires_at: new Date(Date.now() + 5_000) })
      .where('id_hash', '=', before.id_hash)
      .execute();
    const ended = await fetchInPage(devPage, '/dashboard/api/session');
    assert.equal(ended.status, 401);
    assert.equal(await sessionRow(), undefined, 'the session is gone');
    // A page of the dashboard sends the browser to sign in again.
    const cookie = (await devContext.cookies()).find((c) => c.name === 'kino_session')!;
    const page = await fetch(`${dash.dashboardUrl}/keys`, {
      redirect: 'manual',
      headers: { Cookie: `${cookie.name}=${cookie.value}` },
    });
    assert.equal(page.status, 302);
    assert.equal(
      page.headers.get('location'),
      `/dashboard/auth/login?returnTo=${encodeURIComponent('/dashboard/keys')}`,
    );
  });

  it('signs in and out on a phone: the pages around the app are styled, fit 390 px, and nothing answers 404 (the favicon)', async () => {
    const context = await dash.newContext();
    try {
      const page = await context.newPage();
      await page.setViewportSize({ width: 390, height: 844 });
      const missing: string[] = [];
      page.on('response', (response) => {
        if (response.status() === 404) missing.push(response.url());
      });
      // A page around the app: laid out for the phone's width (a viewport tag), in the product's
      // look (its system font and background, not the browser's Times on white), its favicon found.
      const assertProductPage = async (name: string) => {
        // The text can be in the DOM before the stylesheet has loaded (the browser paints only after,
        // but a script reads the styles of the moment): read them once the page has loaded.
        await page.waitForLoadState('load');
        const look = await page.evaluate(() => ({
          viewport: document.querySelector('meta[name=viewport]')?.getAttribute('content') ?? null,
          scrollWidth: document.documentElement.scrollWidth,
          font: getComputedStyle(document.body).fontFamily,
          background: getComputedStyle(document.body).backgroundColor,
          icon: document.querySelector('link[rel=icon]')?.getAttribute('href') ?? null,
        }));
        assert.match(look.viewport ?? '', /width=device-width/, `${name}: a viewport tag`);
        assert.ok(look.scrollWidth <= 390, `${name}: ${look.scrollWidth} px wide at 390`);
        assert.match(look.font, /system-ui/, `${name}: the product's font`);
        assert.equal(look.background, 'rgb(246, 247, 249)', `${name}: the product's background`);
        assert.ok(look.icon, `${name}: a favicon`);
        await dash.screenshot(page, `phone-${name}`);
      };
      await page.goto(`${dash.dashboardUrl}/videos`);
      await page.locator('input[name=email]').waitFor();
      await assertProductPage('provider-sign-in');
      await page.locator('input[name=email]').fill(devUser.email);
      await page.locator('input[name=password]').fill(devUser.password);
      await page.locator('button[type=submit]').click();
      await page.getByTestId('user').filter({ hasText: devUser.email }).waitFor();
      assert.ok(
        await page.evaluate(() => document.querySelector('link[rel=icon]')?.getAttribute('href')),
        'the dashboard names its favicon',
      );
      await page.getByTestId('sign-out').click();
      await page.getByText('You are signed out of Kino.').waitFor();
      await assertProductPage('signed-out');
      const after = await fetchInPage(page, `/v1/api/${dash.orgId}/environments`);
      assert.equal(after.status, 401);
      assert.deepEqual(missing, [], 'no request answered 404');
    } finally {
      await context.close();
    }
  });
});
