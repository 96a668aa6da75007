// The API key format: `svc_live_` or `svc_test_` followed by 32 base62 characters. Only the SHA-256 of a key is
// stored; the key itself is shown once, at creation. A plain hash (no salt, no slow KDF) is enough
// because a key carries ~190 random bits: there is nothing to guess, and lookups stay one index probe.
import { createHash } from 'node:crypto';
import { randomBase62 } from '@kino/infra';

export const API_KEY_PATTERN = /^svc_(live|test)_[0-9A-Za-z]{32}$/;

/** How many leading characters are kept in clear so operators can tell keys apart (`svc_test_AbCd`). */
export const API_KEY_PREFIX_LENGTH = 13;

export interface GeneratedApiKey {
  /** The whole key: hand it to the caller once, never store it. */
  key: string;
  hash: string;
  prefix: string;
}

export function generateApiKey(live: boolean): GeneratedApiKey {
  const key = `svc_${live ? 'live' : 'test'}_${randomBase62(32)}`;
  return { key, hash: hashSecret(key), prefix: key.slice(0, API_KEY_PREFIX_LENGTH) };
}

/** The SHA-256 stored for a high-entropy secret: an API key or an operator token. */
export function hashSecret(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Cheap shape check before any database lookup. */
export function isWellFormedApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}
