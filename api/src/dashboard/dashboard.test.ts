import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { ConfigError } from '@kino/infra';
import { parseApiConfig } from '../config.ts';
import { safeReturnTo } from './auth-routes.ts';
import { dashboardCookies } from '../sessions/cookies.ts';

const base = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/kino',
  TEMPORAL_ADDRESS: '127.0.0.1:7233',
  S3_ENDPOINT: 'http://127.0.0.1:7333',
  S3_BUCKET: 'kino',
  S3_ACCESS_KEY_ID: 'key',
  S3_SECRET_ACCESS_KEY: 'secret',
  DELIVERY_URL: 'http://127.0.0.1:7081',
  KINO_KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};
const provider = {
  OIDC_ISSUER: 'https://id.example.com/realms/acme',
  OIDC_CLIENT_ID: 'kino',
  OIDC_CLIENT_SECRET: 'client-secret',
  DASHBOARD_SESSION_SECRET: 'x'.repeat(32),
};

describe('dashboard configuration', () => {
  it('is off without DASHBOARD_URL, and needs the provider settings with it', () => {
    assert.equal(parseApiConfig(base).DASHBOARD_URL, undefined);
    assert.throws(
      () => parseApiConfig({ ...base, DASHBOARD_URL: 'https://kino.example.com/dashboard' }),
      (error: unknown) =>
        error instanceof ConfigError && error.problems.some((p) => p.startsWith('OIDC_CLIENT_SECRET:')),
    );
    const config = parseApiConfig({ ...base, ...provider, DASHBOARD_URL: 'https://kino.example.com/dashboard/' });
    assert.equal(config.DASHBOARD_URL, 'https://kino.example.com/dashboard');
  });

  it('refuses plain http off loopback and a URL that is not the dashboard', () => {
    assert.throws(
      () => parseApiConfig({ ...base, ...provider, DASHBOARD_URL: 'http://kino.example.com/dashboard' }),
      ConfigError,
    );
    assert.throws(
      () => parseApiConfig({ ...base, ...provider, DASHBOARD_URL: 'https://kino.example.com/' }),
      ConfigError,
    );
    assert.equal(
      parseApiConfig({ ...base, ...provider, DASHBOARD_URL: 'http://127.0.0.1:7080/dashboard' }).DASHBOARD_URL,
      'http://127.0.0.1:7080/dashboard',
    );
  });
});

describe('dashboard cookies', () => {
  it('are Secure with the __Host- prefix outside loopback, httpOnly and SameSite=Lax always', () => {
    const remote = dashboardCookies('https://kino.example.com/dashboard');
    assert.equal(remote.session.name, '__Host-kino_session');
    assert.deepEqual(remote.session.options, { path: '/', httpOnly: true, sameSite: 'lax', secure: true });
    const local = dashboardCookies('http://127.0.0.1:7080/dashboard');
    assert.equal(local.session.name, 'kino_session');
    assert.equal(local.session.options.secure, false);
    assert.equal(local.session.options.httpOnly, true);
  });
});

describe('the page to return to after sign-in', () => {
  it('is a dashboard path, never another site', () => {
    assert.equal(safeReturnTo('/dashboard/videos?status=ready'), '/dashboard/videos?status=ready');
    for (const hostile of [
      'https://evil.example/dashboard',
      '//evil.example/dashboard',
      '/dashboardx',
      '/v1/api/x',
      '/dashboard\\@evil',
      undefined,
      42,
    ]) {
      assert.equal(safeReturnTo(hostile), '/dashboard/', String(hostile));
    }
  });
});
