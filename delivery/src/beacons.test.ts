import { test } from 'vitest';
import assert from 'node:assert/strict';
import { BeaconLimiter, clientOf, parseBeaconBatch } from './beacons.ts';
import { DeliveryError } from './errors.ts';

const batch = {
  viewId: '0b9c2d4e-7f1a-4c3b-9a2e-5d6f7a8b9c0d',
  videoId: 'vid_a',
  player: { name: '@kino/player', version: '0.1.0' },
  events: [
    { type: 'viewstart', at: 0 },
    { type: 'rendition', at: 10, height: 720, bitrate: 2_000_000, codec: 'avc1.64001f' },
    { type: 'heartbeat', at: 10_000, watchedMs: 9000 },
  ],
};

function refusal(body: unknown): DeliveryError {
  try {
    parseBeaconBatch(typeof body === 'string' ? body : JSON.stringify(body));
  } catch (error) {
    assert.ok(error instanceof DeliveryError);
    return error;
  }
  assert.fail('accepted');
}

test('a valid batch is accepted as it is', () => {
  assert.deepEqual(parseBeaconBatch(JSON.stringify(batch)), batch);
});

test('a malformed event is refused with a 400 naming its field', () => {
  const bad = refusal({ ...batch, events: [...batch.events, { type: 'heartbeat', at: 5, watchedMs: -1 }] });
  assert.equal(bad.status, 400);
  assert.equal(bad.code, 'invalid_beacon');
  assert.deepEqual(
    bad.errors?.map((e) => [e.location, e.value]),
    [['body.events.3.watchedMs', -1]],
  );
  assert.deepEqual(
    refusal({ ...batch, events: [{ type: 'dance', at: 1 }] }).errors?.map((e) => e.location),
    ['body.events.0.type'],
  );
  assert.deepEqual(
    refusal({ ...batch, viewId: 'x', events: [{ type: 'seek', at: 1, from: 0 }] }).errors?.map((e) => e.location),
    ['body.viewId', 'body.events.0.to'],
  );
  const tooMany = Array.from({ length: 101 }, (_, at) => ({ type: 'heartbeat', at, watchedMs: 1 }));
  assert.deepEqual(
    refusal({ ...batch, events: tooMany }).errors?.map((e) => e.location),
    ['body.events'],
  );
  assert.equal(refusal('{"viewId":').status, 400);
});

test('browser and operating system families of common User-Agents', () => {
  const cases: [string, string, string][] = [
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
      'Chrome',
      'Linux',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      'Edge',
      'Windows',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      'Safari',
      'iOS',
    ],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox', 'macOS'],
    [
      'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36',
      'Samsung Internet',
      'Android',
    ],
    ['curl/8.5.0', 'Other', 'Other'],
  ];
  for (const [ua, browser, os] of cases) assert.deepEqual(clientOf(ua), { browser, os }, ua);
});

test('the per-address limit answers 429 with Retry-After once the burst is spent, and refills', () => {
  let now = 0;
  const limiter = new BeaconLimiter(2, 4, () => now);
  for (let i = 0; i < 4; i++) limiter.take('10.0.0.1');
  assert.throws(
    () => limiter.take('10.0.0.1'),
    (error: DeliveryError) => error.status === 429 && error.headers['Retry-After'] === '1',
  );
  limiter.take('10.0.0.2');
  now += 500;
  limiter.take('10.0.0.1');
});
