import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { ConfigError } from '@kino/infra';
import { parseApiConfig } from './config.ts';

const minimal = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:7432/kino',
  TEMPORAL_ADDRESS: '127.0.0.1:17233',
  S3_ENDPOINT: 'http://127.0.0.1:7333',
  S3_BUCKET: 'kino',
  S3_ACCESS_KEY_ID: 'id',
  S3_SECRET_ACCESS_KEY: 'secret',
  DELIVERY_URL: 'http://127.0.0.1:7081/',
  KINO_KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};

function problemsOf(source: Record<string, string>): string[] {
  try {
    parseApiConfig(source);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems;
  }
  assert.fail('expected a ConfigError');
}

describe('API configuration', () => {
  it('refuses to start without a key encryption key of 32 bytes', () => {
    const { KINO_KEY_ENCRYPTION_KEY: _, ...withoutKey } = minimal;
    assert.ok(problemsOf(withoutKey).some((problem) => problem.startsWith('KINO_KEY_ENCRYPTION_KEY')));
    const short = { ...minimal, KINO_KEY_ENCRYPTION_KEY: Buffer.alloc(16, 7).toString('base64') };
    assert.ok(problemsOf(short).some((problem) => /KINO_KEY_ENCRYPTION_KEY: expected 32 random bytes/.test(problem)));
  });

  it('applies the documented defaults', () => {
    const config = parseApiConfig(minimal);
    assert.equal(config.API_HOST, '127.0.0.1');
    assert.equal(config.API_PORT, 7080);
    assert.equal(config.TEMPORAL_NAMESPACE, 'default');
    assert.deepEqual(config.API_CORS_ORIGINS, []);
    assert.equal(config.CLICKHOUSE_URL, undefined);
    assert.equal(config.DELIVERY_URL, 'http://127.0.0.1:7081');
    assert.equal(config.LOG_LEVEL, 'info');
  });

  it('parses the CORS origins list', () => {
    const config = parseApiConfig({ ...minimal, API_CORS_ORIGINS: 'https://app.example.com, http://localhost:3000/' });
    assert.deepEqual(config.API_CORS_ORIGINS, ['https://app.example.com', 'http://localhost:3000']);
  });

  it('reads the trusted proxies as addresses, CIDR ranges and named ranges, and refuses anything else', () => {
    assert.deepEqual(parseApiConfig(minimal).API_TRUSTED_PROXIES, []);
    assert.deepEqual(
      parseApiConfig({ ...minimal, API_TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1,fd00::/8, loopback' })
        .API_TRUSTED_PROXIES,
      ['10.0.0.0/8', '127.0.0.1', 'fd00::/8', 'loopback'],
    );
    for (const wrong of ['caddy', '10.0.0.0/33', '10.0.0.1/8/2', 'fd00::/129', '*'])
      assert.ok(
        problemsOf({ ...minimal, API_TRUSTED_PROXIES: wrong }).some((p) => p.startsWith('API_TRUSTED_PROXIES')),
        wrong,
      );
  });

  it('reads other rate limits than the spec table from RATE_LIMITS', () => {
    assert.deepEqual(parseApiConfig(minimal).RATE_LIMITS, {});
    assert.deepEqual(parseApiConfig({ ...minimal, RATE_LIMITS: 'video=100000, general = 200000' }).RATE_LIMITS, {
      video: { limit: 100_000 },
      general: { limit: 200_000 },
    });
    assert.ok(problemsOf({ ...minimal, RATE_LIMITS: 'videos=5' }).some((p) => p.startsWith('RATE_LIMITS')));
    assert.ok(problemsOf({ ...minimal, RATE_LIMITS: 'video=lots' }).some((p) => p.startsWith('RATE_LIMITS')));
  });

  it('names the variable that is missing or wrong', () => {
    const { DATABASE_URL: _omitted, ...withoutDatabase } = minimal;
    assert.ok(problemsOf(withoutDatabase).some((p) => p.startsWith('DATABASE_URL')));
    assert.ok(problemsOf({ ...minimal, API_PORT: 'seventy' }).some((p) => p.startsWith('API_PORT')));
    assert.ok(problemsOf({ ...minimal, TEMPORAL_ADDRESS: 'nowhere' }).some((p) => p.startsWith('TEMPORAL_ADDRESS')));
    assert.ok(
      problemsOf({ ...minimal, API_CORS_ORIGINS: 'not an origin' }).some((p) => p.startsWith('API_CORS_ORIGINS')),
    );
    assert.ok(problemsOf({ ...minimal, DATABASE_URL: 'mysql://x' }).some((p) => p.startsWith('DATABASE_URL')));
  });

  it('names every problem at once, the dashboard settings DASHBOARD_URL requires among them', () => {
    const { DATABASE_URL: _omitted, ...withoutDatabase } = minimal;
    const problems = problemsOf({
      ...withoutDatabase,
      API_PORT: 'seventy',
      DASHBOARD_URL: 'https://kino.example.com/dashboard',
      OIDC_ISSUER: 'https://id.example.com',
    });
    assert.deepEqual(problems.map((p) => p.split(':')[0]).sort(), [
      'API_PORT',
      'DASHBOARD_SESSION_SECRET',
      'DATABASE_URL',
      'OIDC_CLIENT_ID',
      'OIDC_CLIENT_SECRET',
    ]);
  });

  it('takes S3_PUBLIC_ENDPOINT as a URL, optional', () => {
    assert.equal(parseApiConfig(minimal).S3_PUBLIC_ENDPOINT, undefined);
    assert.equal(
      parseApiConfig({ ...minimal, S3_PUBLIC_ENDPOINT: 'https://s3.example.com' }).S3_PUBLIC_ENDPOINT,
      'https://s3.example.com',
    );
    assert.ok(
      problemsOf({ ...minimal, S3_PUBLIC_ENDPOINT: 's3.example.com' }).some((p) => p.startsWith('S3_PUBLIC_ENDPOINT')),
    );
  });
});
