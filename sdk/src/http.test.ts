import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { HttpClient, isRetryableStatus, retryDelayMs } from './http.ts';

describe('retry policy', () => {
  it('retries 429 and 5xx only', () => {
    for (const status of [429, 500, 502, 503, 504]) assert.equal(isRetryableStatus(status), true, String(status));
    for (const status of [400, 401, 403, 404, 409, 422]) assert.equal(isRetryableStatus(status), false, String(status));
  });

  it('honours Retry-After in seconds and as a date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryDelayMs(1, new Headers({ 'retry-after': '3' }), now), 3000);
    assert.equal(retryDelayMs(1, new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now), 5000);
  });

  it('waits for X-RateLimit-Reset when the window is spent', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const headers = new Headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 42) });
    assert.equal(retryDelayMs(1, headers, now), 42_000);
  });

  it('backs off exponentially with jitter, capped', () => {
    for (let retry = 1; retry <= 8; retry += 1) {
      const base = Math.min(500 * 2 ** (retry - 1), 8000);
      const delay = retryDelayMs(retry, undefined);
      assert.ok(delay >= base * 0.75 && delay <= base * 1.25, `retry ${retry}: ${delay}`);
    }
  });

  it('sleeps what the server asked between attempts', async () => {
    const slept: number[] = [];
    const replies = [
      new Response('{}', { status: 429, headers: { 'retry-after': '2' } }),
      new Response('{}', { status: 503, headers: { 'retry-after': '1' } }),
      new Response(JSON.stringify({ body: { ok: true } }), { status: 200 }),
    ];
    const http = new HttpClient({
      apiUrl: 'http://api.test/v1/api',
      apiKey: 'k',
      maxRetries: 2,
      timeoutMs: 1000,
      maxRetryDelayMs: 60_000,
      fetch: () => Promise.resolve(replies.shift()!),
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
    });
    assert.deepEqual(await http.request('GET', '/x'), { ok: true });
    assert.deepEqual(slept, [2000, 1000]);
  });

  it('turns a hung request into a timeout error after timeoutMs', async () => {
    const http = new HttpClient({
      apiUrl: 'http://api.test/v1/api',
      apiKey: 'k',
      maxRetries: 0,
      timeoutMs: 50,
      maxRetryDelayMs: 60_000,
      // A request that never answers (the timer only keeps the test's event loop alive, as a real
      // socket would; AbortSignal.timeout's own timer does not).
      fetch: (_url, init) =>
        new Promise((_resolve, reject) => {
          const keepAlive = setTimeout(() => undefined, 10_000);
          init.signal?.addEventListener('abort', () => {
            clearTimeout(keepAlive);
            reject(new Error('aborted'));
          });
        }),
    });
    await assert.rejects(http.request('GET', '/x'), { name: 'APIConnectionTimeoutError' });
  });
});
