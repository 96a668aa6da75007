// Our Web Crypto check against the `standardwebhooks` library (the reference implementation):
// what it signs we accept, and what it refuses we refuse.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, expectTypeOf, it } from 'vitest';
import { Webhook, WebhookVerificationError as LibraryError } from 'standardwebhooks';
import {
  Kino,
  verifyWebhook,
  WebhookVerificationError,
  type LiveStream,
  type VideoDetails,
  type WebhookTestPayload,
} from './index.ts';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({
  event: 'video.processing.completed',
  videoId: 'vid_1',
  status: 'ready',
  timestamp: '2026-11-23T04:00:00Z',
  data: {},
});

function signed(at: Date, id = 'msg_1', payload = body): Record<string, string> {
  const signature = new Webhook(secret).sign(id, at, payload);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

describe('webhooks.verify', () => {
  it('accepts what the standardwebhooks library signs, as the library does, with Headers or a plain record', async () => {
    const headers = signed(new Date());
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    const kino = new Kino({ apiUrl: 'http://api.test/v1/api', apiKey: 'svc_test_x' });
    assert.deepEqual(await kino.webhooks.verify(body, headers, secret), JSON.parse(body));
    assert.deepEqual(
      await verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret),
      JSON.parse(body),
    );
    // A rotation sends several signatures; one matching is enough.
    const rotated = {
      ...headers,
      'webhook-signature': `v1,${randomBytes(32).toString('base64')} ${headers['webhook-signature']}`,
    };
    assert.deepEqual(await verifyWebhook(body, rotated, secret), JSON.parse(body));
    assert.deepEqual(new Webhook(secret).verify(body, rotated), JSON.parse(body));
  });

  it('refuses what the library refuses: another body, id, secret, a missing header, a stale or future timestamp', async () => {
    const now = new Date();
    const cases: Array<[string, string, Record<string, string>, string]> = [
      ['another body', body.replace('vid_1', 'vid_2'), signed(now), secret],
      ['another id', body, { ...signed(now), 'webhook-id': 'msg_2' }, secret],
      ['another secret', body, signed(now), `whsec_${randomBytes(32).toString('base64')}`],
      ['no signature', body, { ...signed(now), 'webhook-signature': '' }, secret],
      ['six minutes old', body, signed(new Date(now.getTime() - 6 * 60_000)), secret],
      ['six minutes ahead', body, signed(new Date(now.getTime() + 6 * 60_000)), secret],
      [
        'another version',
        body,
        { ...signed(now), 'webhook-signature': signed(now)['webhook-signature']!.replace('v1,', 'v2,') },
        secret,
      ],
    ];
    for (const [name, payload, headers, key] of cases) {
      assert.throws(() => new Webhook(key).verify(payload, headers), LibraryError, `the library accepted ${name}`);
      await assert.rejects(verifyWebhook(payload, headers, key), WebhookVerificationError, `we accepted ${name}`);
    }
  });
});

describe('the verified payload', () => {
  it('narrows by event: a video event carries the details, a test event its webhook', async () => {
    const test = JSON.stringify({
      event: 'webhook.test',
      videoId: null,
      status: null,
      timestamp: '2026-11-27T09:00:00Z',
      data: { webhookId: 'whk_1', message: 'hi' },
    });
    const payloads = [
      await verifyWebhook(body, signed(new Date()), secret),
      await verifyWebhook(test, signed(new Date(), 'msg_2', test), secret),
    ];
    const seen: string[] = [];
    for (const payload of payloads) {
      if (payload.event === 'webhook.test') {
        expectTypeOf(payload.data).toEqualTypeOf<WebhookTestPayload['data']>();
        expectTypeOf(payload.videoId).toEqualTypeOf<null>();
        seen.push(payload.data.webhookId);
      } else if ('liveStreamId' in payload) {
        // A live stream's event: the stream without its key (none is sent here).
        expectTypeOf(payload.data).toEqualTypeOf<Omit<LiveStream, 'streamKey' | 'ingest'>>();
        seen.push(payload.liveStreamId);
      } else {
        expectTypeOf(payload.data).toEqualTypeOf<VideoDetails>();
        expectTypeOf(payload.videoId).toEqualTypeOf<string>();
        if (payload.event === 'video.deleted') expectTypeOf(payload.status).toEqualTypeOf<'deleted'>();
        if (payload.event === 'video.processing.completed') expectTypeOf(payload.status).toEqualTypeOf<'ready'>();
        seen.push(payload.videoId);
      }
    }
    assert.deepEqual(seen, ['vid_1', 'whk_1']);
  });
});
