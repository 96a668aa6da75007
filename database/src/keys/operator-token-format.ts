// The operator token format: `kino_op_` followed by 40 base62 characters (~238 random bits). As with
// API keys only the SHA-256 is stored (nothing to guess, so no slow KDF) and a presented token is
// found by it; the first characters are kept in clear so operators tell tokens apart.
import { randomBase62 } from '@kino/infra';
import { hashSecret } from './api-key-format.ts';

export const OPERATOR_TOKEN_PATTERN = /^kino_op_[0-9A-Za-z]{40}$/;

/** `kino_op_` and 8 random characters: enough to tell tokens apart, far too few to guess the rest. */
export const OPERATOR_TOKEN_PREFIX_LENGTH = 16;

export interface GeneratedOperatorToken {
  /** The whole token: hand it to the operator once, never store it. */
  token: string;
  hash: string;
  prefix: string;
}

export function generateOperatorToken(): GeneratedOperatorToken {
  const token = `kino_op_${randomBase62(40)}`;
  return { token, hash: hashSecret(token), prefix: operatorTokenPrefix(token) };
}

export function operatorTokenPrefix(token: string): string {
  return token.slice(0, OPERATOR_TOKEN_PREFIX_LENGTH);
}
