import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import {
  bindingWindow,
  defaultRateLimits,
  resolveRateLimits,
  rulesByCategory,
  scopeOf,
  windowStart,
  type RateLimitWindowState,
} from './rate-limits.ts';

const state = (
  rule: RateLimitWindowState['rule'],
  limit: number,
  remaining: number,
  reset: number,
  exceeded = false,
): RateLimitWindowState => ({
  rule,
  limit,
  remaining,
  reset,
  exceeded,
});

describe('rate limits', () => {
  it('default to the spec table', () => {
    assert.deepEqual(
      Object.fromEntries(
        Object.entries(defaultRateLimits).map(([name, rule]) => [name, [rule.limit, rule.windowSeconds, rule.per]]),
      ),
      {
        general: [10_000, 3600, 'organization'],
        video: [1_000, 3600, 'organization'],
        analytics: [500, 3600, 'organization'],
        uploadUrl: [100, 3600, 'organization'],
        uploadUrlPerKey: [10, 60, 'key'],
        thumbnails: [50, 3600, 'organization'],
        apiKeys: [20, 3600, 'organization'],
        anonymous: [10_000, 3600, 'client'],
      },
    );
    // Every category also counts as a general call.
    for (const [category, rules] of Object.entries(rulesByCategory)) {
      if (category !== 'anonymous') assert.equal(rules[0], 'general', category);
    }
    assert.deepEqual(rulesByCategory['upload-url'], ['general', 'uploadUrl', 'uploadUrlPerKey']);
  });

  it('can be shrunk for tests without touching the others', () => {
    const rules = resolveRateLimits({ general: { limit: 5 } });
    assert.deepEqual(rules.general, { limit: 5, windowSeconds: 3600, per: 'organization' });
    assert.deepEqual(rules.video, defaultRateLimits.video);
  });

  it("count a dashboard member apart from the organization's keys and from other members", () => {
    const { video, uploadUrlPerKey } = defaultRateLimits;
    const key = { organizationId: 'org_1', keyId: 'key_1', clientAddress: '10.0.0.1' };
    const member = { organizationId: 'org_1', memberId: 'sub-a', keyId: 'user:sub-a', clientAddress: '10.0.0.1' };
    const other = { ...member, memberId: 'sub-b', keyId: 'user:sub-b' };
    const scopes = [key, member, other].map((subject) => scopeOf('video', video, subject));
    assert.equal(new Set(scopes).size, 3, scopes.join(' '));
    assert.equal(scopes[0], 'organization:org_1:video:3600');
    assert.equal(scopes[1], 'member:org_1:sub-a:video:3600');
    // Per-key windows stay per caller.
    assert.equal(scopeOf('uploadUrlPerKey', uploadUrlPerKey, member), 'key:user:sub-a:uploadUrlPerKey:60');
  });

  it('use fixed windows aligned on the window size', () => {
    assert.equal(windowStart(new Date('2031-03-04T05:06:59.999Z'), 60).toISOString(), '2031-03-04T05:06:00.000Z');
    assert.equal(windowStart(new Date('2031-03-04T05:06:59.999Z'), 3600).toISOString(), '2031-03-04T05:00:00.000Z');
  });

  it('report the window closest to its limit, or the exceeded one that stays closed longest', () => {
    const general = state('general', 10_000, 9_990, 2000);
    const upload = state('uploadUrl', 100, 95, 2000);
    const perKey = state('uploadUrlPerKey', 10, 5, 1060);
    assert.equal(bindingWindow([general, upload, perKey])?.rule, 'uploadUrlPerKey');
    assert.equal(bindingWindow([general, state('video', 1000, 9_990, 2000)])?.rule, 'video');
    const exceededSoon = state('uploadUrlPerKey', 10, 0, 1060, true);
    const exceededLater = state('uploadUrl', 100, 0, 2000, true);
    assert.equal(bindingWindow([general, exceededLater, exceededSoon])?.rule, 'uploadUrl');
    assert.equal(bindingWindow([]), undefined);
  });
});
