// Share links end to end against real processes: the API (create, list, revoke), two `kino delivery`
// processes on one PostgreSQL (a link's views counted across both), SeaweedFS and chDB (segment rows).
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { waitFor } from '@kino/dev';
import { createHlsFixture, type HlsFixture } from '@kino/test/support/hls-fixture';
import { countDecodedFrames } from '@kino/test/support/media';
import type { ShareLink } from '@kino/sdk';
import { signedUrlOf, startDeliveryStack, variantUrls, type DeliveryNode, type DeliveryStack } from './harness.ts';

let stack: DeliveryStack;
let second: DeliveryNode;
let priv: HlsFixture;

beforeAll(async () => {
  stack = await startDeliveryStack({ analytics: 'chdb' });
  [priv, second] = await Promise.all([
    createHlsFixture({
      db: stack.db,
      storage: stack.storage,
      workDir: stack.services.dir,
      allowPublicAccess: false,
      orgId: stack.orgId,
      envId: stack.envId,
    }),
    stack.startAnotherDelivery('delivery-2'),
  ]);
});

afterAll(async () => {
  await stack?.stop();
});

async function api(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: { body?: unknown; code?: string } & Record<string, unknown> }> {
  const response = await fetch(`${stack.apiUrl}/${stack.orgId}${path}`, {
    method,
    headers: { 'X-Api-Key': stack.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as never };
}

async function share(videoId: string, options: Record<string, unknown> = {}): Promise<ShareLink> {
  const r = await api('POST', `/videos/${videoId}/share`, options);
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return r.json.body as ShareLink;
}

const errorOf = async (response: Response) =>
  (await response.json()) as { title: string; status: number; detail: string; code: string };

describe('creating, listing and revoking', () => {
  test('a link has the design shape: defaults of 168 hours and no view limit; options are kept', async () => {
    const before = Date.now();
    const plain = await share(priv.videoId);
    assert.deepEqual(Object.keys(plain).sort(), [
      'createdAt',
      'directUrl',
      'expiresAt',
      'id',
      'maxViews',
      'shareUrl',
      'viewerEmail',
      'views',
    ]);
    assert.match(plain.id, /^shr_[0-9A-Za-z]{24}$/);
    assert.equal(plain.directUrl, `${stack.delivery.url}/v1/share/${plain.id}/master.m3u8`);
    assert.equal(plain.shareUrl, `${stack.delivery.url}/v1/share/${plain.id}`);
    const hours = (Date.parse(plain.expiresAt) - Date.parse(plain.createdAt)) / 3600_000;
    assert.equal(Math.round(hours * 1000) / 1000, 168);
    assert.ok(Date.parse(plain.createdAt) >= before - 5_000);
    assert.deepEqual([plain.maxViews, plain.viewerEmail, plain.views], [null, null, 0]);

    const limited = await share(priv.videoId, { expirationHours: 2, maxViews: 3, viewerEmail: 'viewer@example.com' });
    assert.equal(Math.round((Date.parse(limited.expiresAt) - Date.parse(limited.createdAt)) / 60_000), 120);
    assert.deepEqual([limited.maxViews, limited.viewerEmail], [3, 'viewer@example.com']);

    const listed = await api('GET', `/videos/${priv.videoId}/share`);
    assert.equal(listed.status, 200);
    const ids = (listed.json.body as { shareLinks: ShareLink[] }).shareLinks.map((l) => l.id);
    assert.ok(ids.includes(plain.id) && ids.includes(limited.id));
  });

  test('bad options answer 400 with a named code; an unknown video 404', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ expirationHours: 0 }, 'invalid_expiration'],
      [{ expirationHours: 8761 }, 'invalid_expiration'],
      [{ expirationHours: 1.5 }, 'invalid_expiration'],
      [{ maxViews: 0 }, 'invalid_max_views'],
      [{ viewerEmail: 'not an address' }, 'invalid_email'],
    ];
    for (const [body, code] of cases) {
      const r = await api('POST', `/videos/${priv.videoId}/share`, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.code, code, JSON.stringify(r.json));
    }
    const unknown = await api('POST', '/videos/vid_doesnotexist0000/share', {});
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.code, 'video_not_found');
  });
});

describe('playing through a link', () => {
  test('directUrl plays a private video with no key or token, every variant frame by frame, and its segments are logged', async () => {
    const link = await share(priv.videoId);
    const master = await fetch(link.directUrl);
    assert.equal(master.status, 200);
    assert.equal(master.headers.get('cache-control'), 'no-store');
    const text = await master.text();
    assert.doesNotMatch(text, /token=/);
    const variants = variantUrls(link.directUrl, text);
    assert.equal(variants.length, priv.renditions.length);
    for (const variant of variants) {
      assert.ok(variant.startsWith(`${stack.delivery.url}/v1/share/${link.id}/video-`), variant);
      assert.equal(await countDecodedFrames(variant), priv.frameCount, variant);
    }
    // The same video without the link still needs a token.
    assert.equal((await fetch(`${stack.delivery.url}/v1/private/${priv.videoId}/master.m3u8`)).status, 401);

    const rows = await waitFor('segment rows of the shared plays', async () => {
      const [row] = await stack.clickhouse.query<{ n: number }>(
        `SELECT count() AS n FROM segment_deliveries FINAL WHERE video_id = '${priv.videoId}' AND access = 'private'`,
      );
      return row && row.n >= priv.renditions.reduce((sum, r) => sum + r.segmentCount, 0) ? row.n : undefined;
    });
    assert.ok(rows > 0);
  });

  test('shareUrl is a watch page whose player (<kino-player>, hls.js inside) is served by delivery itself', async () => {
    const link = await share(priv.videoId);
    const page = await fetch(link.shareUrl);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const html = await page.text();
    assert.ok(html.includes(`/v1/share/${link.id}/master.m3u8`));
    const script = /<script type="module" src="([^"]+)"><\/script>/.exec(html)?.[1];
    assert.equal(script, '/v1/assets/kino-player.js');
    const player = await fetch(new URL(script, link.shareUrl));
    assert.equal(player.status, 200);
    assert.match(player.headers.get('content-type') ?? '', /javascript/);
    const bundle = await player.text();
    assert.match(bundle, /customElements\.define\("kino-player"/);
    assert.match(bundle, /isSupported/);
    // Opening the page counts no view: only master-playlist loads do.
    const listed = (await api('GET', `/videos/${priv.videoId}/share`)).json.body as { shareLinks: ShareLink[] };
    assert.equal(listed.shareLinks.find((l) => l.id === link.id)?.views, 0);
  });

  test('maxViews 5 holds across two delivery nodes: of 20 concurrent master loads exactly 5 succeed', async () => {
    const link = await share(priv.videoId, { maxViews: 5 });
    const nodes = [stack.delivery.url, second.url];
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => fetch(`${nodes[i % 2]}/v1/share/${link.id}/master.m3u8`)),
    );
    const statuses = responses.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 5, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 410).length, 15, statuses.join(','));
    for (const response of responses.filter((r) => r.status === 410))
      assert.equal((await errorOf(response)).code, 'share_link_used_up');
    const listed = (await api('GET', `/videos/${priv.videoId}/share`)).json.body as { shareLinks: ShareLink[] };
    assert.equal(listed.shareLinks.find((l) => l.id === link.id)?.views, 5);
    // Another link of the same video and a signed URL still play.
    assert.equal((await fetch((await share(priv.videoId)).directUrl)).status, 200);
    assert.equal((await fetch(await signedUrlOf(stack, priv.videoId))).status, 200);
  });

  test('a revoked or expired link answers 410 with its code; the other links and signed URLs keep playing', async () => {
    const [revoked, expired, kept] = await Promise.all([share(priv.videoId), share(priv.videoId), share(priv.videoId)]);
    assert.equal((await fetch(revoked.directUrl)).status, 200);

    const revoke = await api('DELETE', `/videos/${priv.videoId}/share/${revoked.id}`);
    assert.equal(revoke.status, 200);
    assert.deepEqual(
      { ...(revoke.json.body as object), revokedAt: 'x' },
      { id: revoked.id, status: 'revoked', revokedAt: 'x' },
    );
    const again = await api('DELETE', `/videos/${priv.videoId}/share/${revoked.id}`);
    assert.equal(again.status, 404);
    assert.equal(again.json.code, 'share_link_not_found');
    const listed = (await api('GET', `/videos/${priv.videoId}/share`)).json.body as { shareLinks: ShareLink[] };
    assert.ok(!listed.shareLinks.some((l) => l.id === revoked.id), 'a revoked link is no longer listed');

    await stack.db
      .updateTable('share_links')
      .set({ expires_at: sql<Date>`now() - interval '1 second'` })
      .where('id', '=', expired.id)
      .execute();

    for (const node of [stack.delivery.url, second.url]) {
      const r = await fetch(`${node}/v1/share/${revoked.id}/master.m3u8`);
      assert.equal(r.status, 410);
      const body = await errorOf(r);
      assert.deepEqual([body.status, body.title, body.code], [410, 'Gone', 'share_link_revoked']);
      assert.ok(body.detail.length > 0);
      const e = await fetch(`${node}/v1/share/${expired.id}/master.m3u8`);
      assert.equal(e.status, 410);
      assert.equal((await errorOf(e)).code, 'share_link_expired');
      // Its segments are closed too (at most the metadata TTL later).
      await waitFor('the expired link to close its segments', async () => {
        const s = await fetch(`${node}/v1/share/${expired.id}/video-${priv.renditions[0]!.key}/seg-00000.m4s`);
        await s.arrayBuffer();
        return s.status === 410 || undefined;
      });
    }
    assert.equal((await fetch(kept.directUrl)).status, 200);
    assert.equal((await fetch(await signedUrlOf(stack, priv.videoId))).status, 200);
  });

  test('a forged link id answers 404 share_link_not_found; a link of a deleted video 404 video_not_found', async () => {
    const forged = await fetch(`${stack.delivery.url}/v1/share/shr_${'A'.repeat(24)}/master.m3u8`);
    assert.equal(forged.status, 404);
    assert.equal((await errorOf(forged)).code, 'share_link_not_found');

    const other = await createHlsFixture({
      db: stack.db,
      storage: stack.storage,
      workDir: stack.services.dir,
      allowPublicAccess: true,
      orgId: stack.orgId,
      envId: stack.envId,
    });
    const link = await share(other.videoId);
    assert.equal((await fetch(link.directUrl)).status, 200);
    await stack.db
      .updateTable('videos')
      .set({ deleted_at: sql<Date>`now()` })
      .where('id', '=', other.videoId)
      .execute();
    const gone = await waitFor('the deleted video to stop playing through its link', async () => {
      const r = await fetch(link.directUrl);
      return r.status === 404 ? r : undefined;
    });
    assert.equal((await errorOf(gone)).code, 'video_not_found');
    const viewsOf = async () =>
      (await stack.db.selectFrom('share_links').select('views').where('id', '=', link.id).executeTakeFirstOrThrow())
        .views;
    const spent = await viewsOf();
    for (let i = 0; i < 3; i++) assert.equal((await fetch(link.directUrl)).status, 404);
    assert.equal(await viewsOf(), spent, 'refused loads of a deleted video spend no views');
  });
});
