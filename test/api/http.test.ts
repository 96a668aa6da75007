// The API's HTTP behaviour on real PostgreSQL: error envelopes, validation errors, rate limits
// (headers, 429, one counter shared by two API instances over real HTTP), CORS, the OpenAPI document.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { Client, Connection } from '@temporalio/client';
import { sendRawHttp } from '@kino/test/support/raw-http';
import { freePort } from '@kino/dev';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { createApiKey } from '@kino/database/repositories';
import { openDatabase } from '@kino/database';
import type { ApiApp } from '@kino/api';
import {
  assertErrorEnvelope,
  seedTenancy,
  startApiHarness,
  type ApiHarness,
  type Json,
  type Tenancy,
} from './harness.ts';

let services: TestServices;
let api: ApiHarness;
let t: Tenancy;

beforeAll(async () => {
  services = await startTestServices({ postgres: true });
  api = await startApiHarness(services, { env: { API_CORS_ORIGINS: 'https://app.example.com' } });
  t = await seedTenancy(api.db);
});

afterAll(async () => {
  await api?.close();
  await services?.stop();
});

async function inject(
  app: ApiApp,
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'OPTIONS' | 'PATCH',
  url: string,
  { key, body, headers = {} }: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await app.inject({
    method,
    url,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...headers },
    ...(body === undefined ? {} : typeof body === 'string' ? { payload: body } : { payload: body as object }),
  });
  let json: Json;
  try {
    json = response.json();
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, body: json, headers: response.headers, raw: response.body };
}

describe('errors', () => {
  it('answer unknown routes with the 404 envelope, inside and outside /v1/api, with or without a key', async () => {
    for (const [url, key] of [
      ['/v1/api/nothing/here/at/all', undefined],
      ['/v1/api/nothing/here/at/all', t.keys.full],
      ['/', undefined],
      ['/v2/api/health', undefined],
    ] as const) {
      const r = await inject(api.app, 'GET', url, { key });
      assert.equal(r.status, 404, url);
      assertErrorEnvelope(r.body, 404, 'not_found', assert);
      assert.equal(r.body.title, 'Not Found');
    }
  });

  it('answer a method a known path does not declare with 405 and Allow, before reading the body', async () => {
    const cases = [
      ['PUT', `/v1/api/${t.org.id}/environments`, 'GET, HEAD, OPTIONS'],
      ['DELETE', `/v1/api/${t.org.id}/environments/${t.envA.id}/videos/upload-url`, 'POST, OPTIONS'],
      ['QUERY', `/v1/api/${t.org.id}/videos/vid_x/details`, 'GET, HEAD, OPTIONS'],
      ['TRACE', '/v1/api/health', 'GET, HEAD, OPTIONS'],
      ['PUT', `/v1/api/${t.org.id}/videos/vid_x`, 'PATCH, DELETE, OPTIONS'],
    ] as const;
    for (const [method, url, allow] of cases) {
      const r = await api.app.inject({
        method,
        url,
        headers: { 'x-api-key': t.keys.full, 'content-type': 'text/plain' },
        payload: 'x',
      });
      assert.equal(r.statusCode, 405, `${method} ${url}`);
      assertErrorEnvelope(r.json(), 405, 'method_not_allowed', assert);
      assert.equal(r.headers.allow, allow, `${method} ${url}`);
    }
  });

  it("answer Fastify's own refusals in the envelope: 413 body too large, 400 bad percent-encoding", async () => {
    const big = await inject(api.app, 'POST', `/v1/api/${t.org.id}/environments/${t.envA.id}/webhooks`, {
      key: t.keys.full,
      body: JSON.stringify({ url: `https://example.com/${'a'.repeat(1024 * 1024)}` }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(big.status, 413);
    assertErrorEnvelope(big.body, 413, 'payload_too_large', assert);
    const badUrl = await inject(api.app, 'GET', `/v1/api/${t.org.id}/videos/%E0%A4%A/details`, { key: t.keys.full });
    assert.equal(badUrl.status, 400);
    assertErrorEnvelope(badUrl.body, 400, 'invalid_url_encoding', assert);
    // A long path parameter is judged by the schema, with the field named, not refused by the router.
    const longId = await inject(api.app, 'GET', `/v1/api/${t.org.id}/videos/${'v'.repeat(500)}/details`, {
      key: t.keys.full,
    });
    assert.equal(longId.status, 400);
    assertErrorEnvelope(longId.body, 400, 'invalid_request', assert);
    assert.equal(longId.body.errors[0].location, 'params.publicID');
  });

  it("answer what Node's parser refuses in the envelope over real HTTP: 431 oversized headers or URL, 400 malformed", async () => {
    const app = await api.buildAnother();
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const longUrl = await sendRawHttp(
      base,
      `GET /v1/api/${t.org.id}/videos?search=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    assert.match(longUrl.statusLine, /^HTTP\/1\.1 431 /);
    assertErrorEnvelope(JSON.parse(longUrl.body), 431, 'headers_too_large', assert);
    const bigHeader = await sendRawHttp(
      base,
      `GET /v1/api/health HTTP/1.1\r\nHost: x\r\nX-Filler: ${'b'.repeat(20_000)}\r\n\r\n`,
    );
    assertErrorEnvelope(JSON.parse(bigHeader.body), 431, 'headers_too_large', assert);
    const malformed = await sendRawHttp(base, 'GET /v1/api/health HTTP/1.1\r\nHost x\r\n\r\n');
    assert.match(malformed.statusLine, /^HTTP\/1\.1 400 /);
    assertErrorEnvelope(JSON.parse(malformed.body), 400, 'malformed_request', assert);
  });

  it('answer malformed JSON with 400 invalid_json, not 500', async () => {
    const r = await inject(api.app, 'POST', `/v1/api/${t.org.id}/environments/${t.envA.id}/videos/upload-url`, {
      key: t.keys.full,
      body: '{"filename": "a.mp4", "fileSize": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 400);
    assertErrorEnvelope(r.body, 400, 'invalid_json', assert);
  });

  it('refuse a JSON null body where the body may be left out, and take the body left out', async () => {
    const path = `/v1/api/${t.org.id}/environments/${t.envA.id}/live-streams`;
    const headers = { 'content-type': 'application/json' };
    const refused = await inject(api.app, 'POST', path, { key: t.keys.full, body: 'null', headers });
    assertErrorEnvelope(refused.body, 400, 'invalid_request', assert);
    const created = await inject(api.app, 'POST', path, { key: t.keys.full, body: '', headers });
    assert.equal(created.status, 200);
  });

  it('answer a body that is not JSON with 415 unsupported_media_type', async () => {
    const r = await inject(api.app, 'POST', `/v1/api/${t.org.id}/environments/${t.envA.id}/videos/upload-url`, {
      key: t.keys.full,
      body: 'filename=a.mp4',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(r.status, 415);
    assertErrorEnvelope(r.body, 415, 'unsupported_media_type', assert);
  });

  it('list every invalid field with its location and value', async () => {
    const r = await inject(api.app, 'POST', `/v1/api/${t.org.id}/environments/${t.envA.id}/videos/upload-url`, {
      key: t.keys.full,
      body: { fileSize: 'big', contentType: 'video/mp4' },
    });
    assert.equal(r.status, 400);
    assertErrorEnvelope(r.body, 400, 'invalid_file_size', assert);
    const byLocation = Object.fromEntries(r.body.errors.map((e: Json) => [e.location, e]));
    assert.deepEqual(Object.keys(byLocation).sort(), ['body.fileSize', 'body.filename']);
    assert.equal(byLocation['body.fileSize'].value, 'big');
    assert.equal(byLocation['body.filename'].value, null);
    assert.match(byLocation['body.filename'].message, /filename is required/);

    const q = await inject(api.app, 'GET', `/v1/api/${t.org.id}/videos?sortBy=size&page=0`, { key: t.keys.full });
    assert.equal(q.status, 400);
    assertErrorEnvelope(q.body, 400, 'invalid_request', assert);
    assert.deepEqual(q.body.errors.map((e: Json) => e.location).sort(), ['query.page', 'query.sortBy']);
    assert.equal(q.body.errors.find((e: Json) => e.location === 'query.sortBy').value, 'size');
  });

  it('name the condition where the spec names one: invalid_page_size above 100', async () => {
    const r = await inject(api.app, 'GET', `/v1/api/${t.org.id}/environments/${t.envA.id}/videos?pageSize=101`, {
      key: t.keys.full,
    });
    assert.equal(r.status, 400);
    assertErrorEnvelope(r.body, 400, 'invalid_page_size', assert);
    assert.deepEqual(r.body.errors, [
      { message: 'pageSize must be at most 100', location: 'query.pageSize', value: 101 },
    ]);
    const ok = await inject(api.app, 'GET', `/v1/api/${t.org.id}/environments/${t.envA.id}/videos?pageSize=100`, {
      key: t.keys.full,
    });
    assert.equal(ok.status, 200);
  });

  it('name invalid_file_size and unsupported_format on upload URLs', async () => {
    const url = `/v1/api/${t.org.id}/environments/${t.envA.id}/videos/upload-url`;
    // Its own key: upload URLs are limited to 10 a minute per key, and this test makes 8.
    const { apiKey: key } = await createApiKey(api.db, { orgId: t.org.id, type: 'full', live: false });
    for (const fileSize of [0, 5 * 1024 ** 3 + 1, 1.5]) {
      const r = await inject(api.app, 'POST', url, { key, body: { filename: 'a.mp4', fileSize } });
      assert.equal(r.status, 400, String(fileSize));
      assertErrorEnvelope(r.body, 400, 'invalid_file_size', assert);
      assert.equal(r.body.errors[0].location, 'body.fileSize');
    }
    for (const contentType of ['video/ogg', 'application/pdf', '']) {
      const r = await inject(api.app, 'POST', url, { key, body: { filename: 'a.mp4', fileSize: 10, contentType } });
      assert.equal(r.status, 400, contentType);
      assertErrorEnvelope(r.body, 400, 'unsupported_format', assert);
      assert.deepEqual(r.body.errors[0].location, 'body.contentType');
    }
    // The edges of the allowed range.
    for (const fileSize of [1, 5 * 1024 ** 3]) {
      const r = await inject(api.app, 'POST', url, { key, body: { filename: 'a.mp4', fileSize } });
      assert.equal(r.status, 200, String(fileSize));
    }
  });
});

describe('request ids', () => {
  it('answer X-Request-Id on every response: successes, refusals before routing, unknown routes, no key', async () => {
    const answers = [
      await inject(api.app, 'GET', `/v1/api/${t.org.id}/environments`, { key: t.keys.full }),
      await inject(api.app, 'GET', `/v1/api/${t.org.id}/environments`),
      await inject(api.app, 'GET', '/v1/api/nothing/here'),
      await inject(api.app, 'GET', `/v1/api/${t.org.id}/videos/%E0%A4%A/details`, { key: t.keys.full }),
      await inject(api.app, 'POST', `/v1/api/${t.org.id}/environments/${t.envA.id}/webhooks`, {
        key: t.keys.full,
        body: '{',
        headers: { 'content-type': 'application/json' },
      }),
    ];
    const ids = answers.map((answer) => answer.headers['x-request-id']);
    for (const [i, id] of ids.entries())
      assert.match(String(id), /^req_[A-Za-z0-9_-]{16}$/, `answer ${i} (${answers[i]!.status})`);
    assert.equal(new Set(ids).size, ids.length, 'each request has an id of its own');
  });

  it("answer the client's own id when it is a short token, and a new one for anything else", async () => {
    for (const given of ['0af7651916cd43dd8448eb211c80319c', '01JD7V3K9QX2M4N5P6R7S8T9VW', 'trace:abc/1.2-3_x=+@']) {
      const r = await inject(api.app, 'GET', `/v1/api/${t.org.id}/environments`, {
        key: t.keys.full,
        headers: { 'x-request-id': given },
      });
      assert.equal(r.headers['x-request-id'], given);
    }
    for (const given of ['a'.repeat(129), 'has space', 'quote"d', '']) {
      const r = await inject(api.app, 'GET', `/v1/api/${t.org.id}/environments`, {
        key: t.keys.full,
        headers: { 'x-request-id': given },
      });
      assert.match(String(r.headers['x-request-id']), /^req_/, JSON.stringify(given));
    }
  });

  it('are exposed to browsers of configured origins, which may send their own', async () => {
    const r = await inject(api.app, 'GET', `/v1/api/${t.org.id}/environments`, {
      key: t.keys.full,
      headers: { origin: 'https://app.example.com' },
    });
    assert.match(String(r.headers['access-control-expose-headers']), /X-Request-Id/);
    const preflight = await inject(api.app, 'OPTIONS', `/v1/api/${t.org.id}/environments`, {
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-request-id',
      },
    });
    assert.match(String(preflight.headers['access-control-allow-headers']), /X-Request-Id/);
  });
});

describe('rate limits', () => {
  it('put X-RateLimit-Limit/Remaining/Reset on every response', async () => {
    const now = Math.floor(Date.now() / 1000);
    const responses = [
      await inject(api.app, 'GET', `/v1/api/${t.org.id}/environments`, { key: t.keys.full }),
      await inject(api.app, 'GET', `/v1/api/${t.org.id}/environments`),
      await inject(api.app, 'GET', '/v1/api/nope'),
      await inject(api.app, 'GET', '/v1/api/openapi.json'),
      await inject(api.app, 'GET', `/v1/api/${t.org.id}/videos?pageSize=500`, { key: t.keys.full }),
    ];
    for (const r of responses) {
      const limit = Number(r.headers['x-ratelimit-limit']);
      const remaining = Number(r.headers['x-ratelimit-remaining']);
      const reset = Number(r.headers['x-ratelimit-reset']);
      assert.ok(limit > 0 && remaining >= 0 && remaining < limit, JSON.stringify(r.headers));
      assert.ok(reset > now && reset <= now + 3600, `reset ${reset} is a unix time within the hour`);
    }
    // The real table: 10,000 general calls an hour, 1,000 video operations.
    assert.equal(responses[0]!.headers['x-ratelimit-limit'], '10000');
    assert.equal(responses[4]!.headers['x-ratelimit-limit'], '1000');
  });

  it('count down per organization, whichever key of it calls', async () => {
    const first = await inject(api.app, 'GET', `/v1/api/${t.org.id}/environments`, { key: t.keys.full });
    const second = await inject(api.app, 'GET', `/v1/api/${t.org.id}/environments`, { key: t.keys.envA });
    assert.equal(Number(second.headers['x-ratelimit-remaining']), Number(first.headers['x-ratelimit-remaining']) - 1);
    const other = await inject(api.app, 'GET', `/v1/api/${t.otherOrg.id}/environments`, { key: t.keys.otherFull });
    assert.ok(Number(other.headers['x-ratelimit-remaining']) > Number(second.headers['x-ratelimit-remaining']));
  });

  it('limit upload URLs to 10 a minute per key (the real table), then answer 429 rate_limit_exceeded', async () => {
    // A fixed clock keeps all calls in one window.
    const app = await api.buildAnother({ now: () => new Date('2031-03-04T05:06:00Z') });
    const { apiKey } = await createApiKey(api.db, { orgId: t.org.id, type: 'full', live: false });
    const url = `/v1/api/${t.org.id}/environments/${t.envA.id}/videos/upload-url`;
    for (let i = 1; i <= 10; i++) {
      const r = await inject(app, 'POST', url, { key: apiKey, body: { filename: 'a.mp4', fileSize: 1000 } });
      assert.equal(r.status, 200);
      assert.equal(r.headers['x-ratelimit-limit'], '10');
      assert.equal(r.headers['x-ratelimit-remaining'], String(10 - i));
      assert.equal(r.headers['x-ratelimit-reset'], String(Date.parse('2031-03-04T05:07:00Z') / 1000));
    }
    const refused = await inject(app, 'POST', url, { key: apiKey, body: { filename: 'a.mp4', fileSize: 1000 } });
    assert.equal(refused.status, 429);
    assertErrorEnvelope(refused.body, 429, 'rate_limit_exceeded', assert);
    assert.equal(refused.headers['x-ratelimit-remaining'], '0');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    // Another key of the same organization has its own per-key minute.
    const otherKey = await inject(app, 'POST', url, { key: t.keys.full, body: { filename: 'a.mp4', fileSize: 1000 } });
    assert.equal(otherKey.status, 200);
  });

  it('apply the organization-wide upload limit across keys (limit shrunk for the test)', async () => {
    const app = await api.buildAnother({
      now: () => new Date('2031-05-01T10:30:00Z'),
      rateLimits: { uploadUrl: { limit: 3 } },
    });
    const keys = [t.keys.full, t.keys.envA, t.keys.full];
    const url = `/v1/api/${t.org.id}/environments/${t.envA.id}/videos/upload-url`;
    for (const key of keys) {
      assert.equal((await inject(app, 'POST', url, { key, body: { filename: 'a.mp4', fileSize: 1 } })).status, 200);
    }
    const refused = await inject(app, 'POST', url, { key: t.keys.envA, body: { filename: 'a.mp4', fileSize: 1 } });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['x-ratelimit-limit'], '3');
    // Other categories are not spent by uploads.
    assert.equal((await inject(app, 'GET', `/v1/api/${t.org.id}/environments`, { key: t.keys.full })).status, 200);
  });

  it('limit video operations separately from general calls', async () => {
    const app = await api.buildAnother({
      now: () => new Date('2031-06-01T10:30:00Z'),
      rateLimits: { video: { limit: 2 } },
    });
    const list = `/v1/api/${t.org.id}/videos`;
    assert.equal((await inject(app, 'GET', list, { key: t.keys.full })).status, 200);
    assert.equal((await inject(app, 'GET', list, { key: t.keys.full })).status, 200);
    const refused = await inject(app, 'GET', list, { key: t.keys.full });
    assert.equal(refused.status, 429);
    assertErrorEnvelope(refused.body, 429, 'rate_limit_exceeded', assert);
    assert.equal((await inject(app, 'GET', `/v1/api/${t.org.id}/environments`, { key: t.keys.full })).status, 200);
  });

  it('refuse a flood of requests without a valid key per client address', async () => {
    const app = await api.buildAnother({
      now: () => new Date('2031-07-01T10:30:00Z'),
      rateLimits: { anonymous: { limit: 2 } },
    });
    assert.equal((await inject(app, 'GET', `/v1/api/${t.org.id}/environments`)).status, 401);
    assert.equal((await inject(app, 'GET', `/v1/api/${t.org.id}/environments`, { key: 'svc_test_guess' })).status, 401);
    const refused = await inject(app, 'GET', `/v1/api/${t.org.id}/environments`, { key: 'svc_test_guess2' });
    assert.equal(refused.status, 429);
    // Keyed calls are counted per organization, not against the address.
    assert.equal((await inject(app, 'GET', `/v1/api/${t.org.id}/environments`, { key: t.keys.full })).status, 200);
  });

  it('count each client behind a trusted proxy on its own, and ignore the forwarded address from anyone else', async () => {
    const rateLimits = { anonymous: { limit: 1 } };
    const anonymous = (app: ApiApp, client: string) =>
      app
        .inject({ method: 'GET', url: `/v1/api/${t.org.id}/environments`, headers: { 'x-forwarded-for': client } })
        .then((response) => response.statusCode);
    // inject's requests come from 127.0.0.1: the proxy.
    const behindProxy = await api.buildAnother({
      now: () => new Date('2031-07-02T10:30:00Z'),
      rateLimits,
      config: { ...api.config, API_TRUSTED_PROXIES: ['127.0.0.1'] },
    });
    assert.equal(await anonymous(behindProxy, '203.0.113.7'), 401);
    assert.equal(await anonymous(behindProxy, '203.0.113.7'), 429, "the first client's budget is spent");
    assert.equal(await anonymous(behindProxy, '198.51.100.9'), 401, 'another client has its own');
    // Not a trusted proxy: the header names no one, and every request is 127.0.0.1's.
    const direct = await api.buildAnother({ now: () => new Date('2031-07-03T10:30:00Z'), rateLimits });
    assert.equal(await anonymous(direct, '203.0.113.7'), 401);
    assert.equal(await anonymous(direct, '198.51.100.9'), 429, 'a forwarded address from a client is not believed');
  });

  it('share one counter between two API instances on the same database (real HTTP)', async () => {
    const clock = () => new Date('2031-08-01T10:30:00Z');
    const limits = { general: { limit: 6 } };
    const first = await api.buildAnother({ now: clock, rateLimits: limits });
    const second = await api.buildAnother({ now: clock, rateLimits: limits });
    const urls = [
      await first.listen({ host: '127.0.0.1', port: 0 }),
      await second.listen({ host: '127.0.0.1', port: 0 }),
    ];
    assert.notEqual(urls[0], urls[1]);
    const remaining: string[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const response = await fetch(`${urls[i % 2]}/v1/api/${t.org.id}/environments`, {
        headers: { 'X-Api-Key': t.keys.full },
      });
      statuses.push(response.status);
      remaining.push(response.headers.get('x-ratelimit-remaining') ?? '');
      await response.arrayBuffer();
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429]);
    assert.deepEqual(remaining, ['5', '4', '3', '2', '1', '0', '0']);
  });
});

describe('database down', () => {
  it('answers 503, never 500: health names the database, keyed calls get service_unavailable', async () => {
    const db = await openDatabase(`postgres://postgres@127.0.0.1:${await freePort()}/kino`);
    // Temporal is not running in this file either: a client that does not retry keeps the check short.
    const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, interceptors: [] });
    const app = await api.buildAnother({ db, temporal: new Client({ connection }) });
    try {
      const health = await inject(app, 'GET', '/v1/api/health');
      assert.equal(health.status, 503);
      assert.equal(health.body.body.checks.database.status, 'error');
      assert.match(health.body.detail, /database/);
      assert.ok(
        health.body.detail.includes(`(request ${health.headers['x-request-id']})`),
        'a 5xx names the request id',
      );
      const keyed = await inject(app, 'GET', `/v1/api/${t.org.id}/environments`, { key: t.keys.full });
      assert.equal(keyed.status, 503);
      assertErrorEnvelope(keyed.body, 503, 'service_unavailable', assert);
      assert.ok(keyed.body.detail.includes(`(request ${keyed.headers['x-request-id']})`), 'a 5xx names the request id');
    } finally {
      await db.destroy();
      await connection.close();
    }
  });
});

describe('CORS', () => {
  it('answers configured origins only', async () => {
    const allowed = await inject(api.app, 'GET', `/v1/api/${t.org.id}/environments`, {
      key: t.keys.full,
      headers: { origin: 'https://app.example.com' },
    });
    assert.equal(allowed.headers['access-control-allow-origin'], 'https://app.example.com');
    assert.match(String(allowed.headers['access-control-expose-headers']), /X-RateLimit-Remaining/);
    const other = await inject(api.app, 'GET', `/v1/api/${t.org.id}/environments`, {
      key: t.keys.full,
      headers: { origin: 'https://evil.example.net' },
    });
    assert.equal(other.status, 200);
    assert.equal(other.headers['access-control-allow-origin'], undefined);
  });

  it('answers preflights from configured origins, without a key', async () => {
    const preflight = await inject(api.app, 'OPTIONS', `/v1/api/${t.org.id}/environments/${t.envA.id}/videos/process`, {
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], 'https://app.example.com');
    assert.match(String(preflight.headers['access-control-allow-headers']), /X-Api-Key/i);
    const refused = await inject(api.app, 'OPTIONS', `/v1/api/${t.org.id}/environments`, {
      headers: { origin: 'https://evil.example.net', 'access-control-request-method': 'GET' },
    });
    assert.equal(refused.headers['access-control-allow-origin'], undefined);
  });

  it('allows no origin when none is configured', async () => {
    const app = await api.buildAnother({ config: { ...api.config, API_CORS_ORIGINS: [] } });
    const r = await inject(app, 'GET', `/v1/api/${t.org.id}/environments`, {
      key: t.keys.full,
      headers: { origin: 'https://app.example.com' },
    });
    assert.equal(r.headers['access-control-allow-origin'], undefined);
  });
});

describe('OpenAPI', () => {
  it('documents every route at /v1/api/openapi.json, without a key', async () => {
    const r = await inject(api.app, 'GET', '/v1/api/openapi.json');
    assert.equal(r.status, 200);
    const doc = r.body;
    assert.match(doc.openapi, /^3\./);
    assert.deepEqual(doc.servers, [{ url: '/v1/api' }]);
    assert.deepEqual(doc.components.securitySchemes.apiKey, { type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    const expected: Record<string, string[]> = {
      '/health': ['get'],
      '/{orgID}/environments': ['get'],
      '/{orgID}/environments/{envID}/videos/upload-url': ['post'],
      '/{orgID}/environments/{envID}/videos/process': ['post'],
      '/{orgID}/environments/{envID}/videos/ingest': ['post'],
      '/{orgID}/environments/{envID}/videos': ['get'],
      '/{orgID}/videos': ['get'],
      '/{orgID}/videos/{publicID}/details': ['get'],
      '/{orgID}/videos/{publicID}/retry': ['post'],
      '/{orgID}/videos/{videoID}': ['delete', 'patch'],
      '/{orgID}/environments/{envID}/webhooks': ['get', 'post'],
      '/{orgID}/environments/{envID}/webhooks/{webhookID}': ['delete'],
      '/{orgID}/videos/{publicID}/share': ['get', 'post'],
      '/{orgID}/videos/{publicID}/share/{linkID}': ['delete'],
      '/{orgID}/videos/{publicID}/thumbnails': ['post'],
      '/{orgID}/videos/{publicID}/clips': ['post'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      assert.ok(doc.paths[path], `${path} is documented`);
      for (const method of methods) assert.ok(doc.paths[path][method], `${method} ${path}`);
    }
    assert.deepEqual(doc.paths['/health'].get.security, []);
    const list = doc.paths['/{orgID}/environments/{envID}/videos'].get;
    const pageSize = list.parameters.find((p: Json) => p.name === 'pageSize' && p.in === 'query');
    assert.equal(pageSize.schema.maximum, 100);
    assert.ok(list.responses['200'] && list.responses['401'] && list.responses['429']);
    const process = doc.paths['/{orgID}/environments/{envID}/videos/process'].post;
    const bodySchema = process.requestBody.content['application/json'].schema;
    assert.deepEqual(bodySchema.properties.videoQuality.enum, ['standard', 'high', 'ultra']);
    assert.deepEqual(bodySchema.required.sort(), ['allowPublicAccess', 'storagePath', 'videoQuality']);
    // Ingest takes every option of process, a URL in place of the storage path.
    const ingestSchema =
      doc.paths['/{orgID}/environments/{envID}/videos/ingest'].post.requestBody.content['application/json'].schema;
    assert.deepEqual(ingestSchema.required.sort(), ['allowPublicAccess', 'url', 'videoQuality']);
    assert.deepEqual(
      Object.keys(ingestSchema.properties).sort(),
      Object.keys(bodySchema.properties)
        .filter((name) => name !== 'storagePath')
        .concat('url')
        .sort(),
    );
    assert.equal(doc.paths['/openapi.json'], undefined);
  });

  it('names, describes and shows every operation by example, each example inside its schema', async () => {
    const doc = (await inject(api.app, 'GET', '/v1/api/openapi.json')).body;
    // The document is OpenAPI 3.0: `nullable` is its keyword, `example` an annotation.
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const operationIds = new Set<string>();
    const checkExample = (where: string, media: Json) => {
      assert.ok(media, `${where} is JSON`);
      const examples: unknown[] =
        media.example !== undefined ? [media.example] : Object.values(media.examples ?? {}).map((e: Json) => e.value);
      assert.ok(examples.length > 0, `${where} has an example`);
      const validate = ajv.compile(media.schema);
      for (const example of examples)
        assert.ok(validate(example), `${where}'s example fits its schema: ${ajv.errorsText(validate.errors)}`);
    };
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        operations++;
        assert.match(operation.operationId ?? '', /^[a-z]+[A-Z][A-Za-z]*$/, `${name} has a camelCase operationId`);
        assert.ok(!operationIds.has(operation.operationId), `${name}'s operationId ${operation.operationId} is unique`);
        operationIds.add(operation.operationId);
        assert.ok(operation.summary?.trim(), `${name} has a summary`);
        assert.ok(operation.description?.trim(), `${name} has a description`);
        if (operation.requestBody)
          checkExample(`${name}'s request body`, operation.requestBody.content['application/json']);
        if (operation.responses['200'])
          checkExample(`${name}'s 200 response`, operation.responses['200'].content?.['application/json']);
      }
    }
    assert.ok(operations > 30, `every route is documented (${operations} operations)`);
  });
});
