import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { API_KEY_PATTERN, generateApiKey, hashSecret, isWellFormedApiKey } from './api-key-format.ts';

describe('API keys', () => {
  it('have the svc_live_/svc_test_ prefix and 32 base62 characters', () => {
    const live = generateApiKey(true);
    const test = generateApiKey(false);
    assert.match(live.key, /^svc_live_[0-9A-Za-z]{32}$/);
    assert.match(test.key, /^svc_test_[0-9A-Za-z]{32}$/);
    assert.equal(live.key.length, 'svc_live_'.length + 32);
    assert.ok(API_KEY_PATTERN.test(live.key));
  });

  it('are stored as a SHA-256 hash, never in clear, and keep only a short prefix', () => {
    const generated = generateApiKey(false);
    assert.match(generated.hash, /^[0-9a-f]{64}$/);
    assert.equal(generated.hash, hashSecret(generated.key));
    assert.ok(!generated.hash.includes(generated.key.slice(9)));
    assert.equal(generated.prefix, generated.key.slice(0, 13));
    assert.ok(generated.key.startsWith(generated.prefix));
  });

  it('differ every time', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateApiKey(true).key));
    assert.equal(keys.size, 200);
  });

  it('reject malformed keys before any lookup', () => {
    assert.equal(isWellFormedApiKey(generateApiKey(true).key), true);
    for (const bad of [
      '',
      'svc_live_short',
      `svc_prod_${'a'.repeat(32)}`,
      `svc_live_${'a'.repeat(31)}!`,
      `svc_live_${'a'.repeat(33)}`,
      `Bearer svc_live_${'a'.repeat(32)}`,
    ]) {
      assert.equal(isWellFormedApiKey(bad), false, bad);
    }
  });
});
