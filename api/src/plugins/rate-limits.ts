// The spec's rate limits, per organization (and the upload-URL limit per key), as fixed windows
// counted in the database (`rate_limit_counters`), so every API instance shares them.
import type { Db } from '@kino/database';
import { incrementRateLimitCounters } from '@kino/database/repositories';

export type RateLimitRuleName =
  'general' | 'video' | 'analytics' | 'uploadUrl' | 'uploadUrlPerKey' | 'thumbnails' | 'apiKeys' | 'anonymous';

export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
  /** What one counter belongs to. */
  per: 'organization' | 'key' | 'client';
}

/** The limits table of the spec (analytics: 500/h, docs/decisions/api.md#rate-limits). */
export const defaultRateLimits: Record<RateLimitRuleName, RateLimitRule> = {
  general: { limit: 10_000, windowSeconds: 3600, per: 'organization' },
  video: { limit: 1_000, windowSeconds: 3600, per: 'organization' },
  analytics: { limit: 500, windowSeconds: 3600, per: 'organization' },
  uploadUrl: { limit: 100, windowSeconds: 3600, per: 'organization' },
  uploadUrlPerKey: { limit: 10, windowSeconds: 60, per: 'key' },
  thumbnails: { limit: 50, windowSeconds: 3600, per: 'organization' },
  apiKeys: { limit: 20, windowSeconds: 3600, per: 'organization' },
  // Requests that carry no valid key (health, the OpenAPI document, 401s, unknown paths) have no
  // organization: they are counted per client address, at the general rate.
  anonymous: { limit: 10_000, windowSeconds: 3600, per: 'client' },
};

export type RateLimitOverrides = Partial<Record<RateLimitRuleName, Partial<Omit<RateLimitRule, 'per'>>>>;

/** What a route counts against, declared in its `config.rateLimit`. Every category includes `general`. */
export type RateLimitCategory = 'general' | 'video' | 'analytics' | 'upload-url' | 'thumbnails' | 'api-keys';

export const rulesByCategory: Record<RateLimitCategory | 'anonymous', RateLimitRuleName[]> = {
  general: ['general'],
  video: ['general', 'video'],
  analytics: ['general', 'analytics'],
  'upload-url': ['general', 'uploadUrl', 'uploadUrlPerKey'],
  thumbnails: ['general', 'thumbnails'],
  'api-keys': ['general', 'apiKeys'],
  anonymous: ['anonymous'],
};

export function resolveRateLimits(overrides: RateLimitOverrides = {}): Record<RateLimitRuleName, RateLimitRule> {
  const rules = { ...defaultRateLimits };
  for (const [name, override] of Object.entries(overrides) as [
    RateLimitRuleName,
    RateLimitOverrides[RateLimitRuleName],
  ][]) {
    rules[name] = { ...rules[name], ...override };
  }
  return rules;
}

export interface RateLimitSubject {
  organizationId?: string;
  /**
   * A dashboard member (the session's user): their organization-wide windows are their own, kept
   * apart from the ones the organization's API keys spend (docs/decisions/dashboard.md#budgets).
   */
  memberId?: string;
  keyId?: string;
  clientAddress: string;
}

export interface RateLimitWindowState {
  rule: RateLimitRuleName;
  limit: number;
  remaining: number;
  /** Unix seconds at which the window ends. */
  reset: number;
  exceeded: boolean;
}

export function windowStart(now: Date, windowSeconds: number): Date {
  const windowMs = windowSeconds * 1000;
  return new Date(Math.floor(now.getTime() / windowMs) * windowMs);
}

export function scopeOf(name: RateLimitRuleName, rule: RateLimitRule, subject: RateLimitSubject): string | undefined {
  if (rule.per === 'organization' && subject.memberId !== undefined) {
    return `member:${subject.organizationId ?? ''}:${subject.memberId}:${name}:${rule.windowSeconds}`;
  }
  const owner = { organization: subject.organizationId, key: subject.keyId, client: subject.clientAddress }[rule.per];
  return owner === undefined ? undefined : `${rule.per}:${owner}:${name}:${rule.windowSeconds}`;
}

/** Counts the request in every window of its category and reports each window's state. */
export async function countRequest(
  db: Db,
  rules: Record<RateLimitRuleName, RateLimitRule>,
  ruleNames: RateLimitRuleName[],
  subject: RateLimitSubject,
  now: Date,
): Promise<RateLimitWindowState[]> {
  const windows = ruleNames.flatMap((name) => {
    const rule = rules[name];
    const scope = scopeOf(name, rule, subject);
    return scope ? [{ name, rule, scope, windowStart: windowStart(now, rule.windowSeconds) }] : [];
  });
  const counts = await incrementRateLimitCounters(db, windows);
  return windows.map(({ name, rule, scope, windowStart: start }) => {
    const count = counts.get(scope) ?? 1;
    return {
      rule: name,
      limit: rule.limit,
      remaining: Math.max(0, rule.limit - count),
      reset: Math.floor(start.getTime() / 1000) + rule.windowSeconds,
      exceeded: count > rule.limit,
    };
  });
}

/**
 * The window the headers describe: an exceeded one if any (the one that stays closed longest),
 * otherwise the one closest to its limit; on a tie, the more specific rule (listed later).
 */
export function bindingWindow(states: RateLimitWindowState[]): RateLimitWindowState | undefined {
  const exceeded = states.filter((s) => s.exceeded);
  if (exceeded.length > 0) return exceeded.reduce((a, b) => (b.reset >= a.reset ? b : a));
  return states.reduce<RateLimitWindowState | undefined>(
    (a, b) => (!a || b.remaining <= a.remaining ? b : a),
    undefined,
  );
}
