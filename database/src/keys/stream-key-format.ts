// Live stream keys (@kino/proto/contract streamKeyPattern): the publisher's credential. The SHA-256
// finds the stream at ingest (nothing to guess, so no slow KDF, as for API keys); the key itself is
// kept sealed beside it, since a stream's owner reads it back to configure an encoder.
import { randomBase62 } from '@kino/infra';
import { hashSecret } from './api-key-format.ts';

export interface GeneratedStreamKey {
  key: string;
  hash: string;
}

export function generateStreamKey(): GeneratedStreamKey {
  const key = `sk_${randomBase62(40)}`;
  return { key, hash: hashSecret(key) };
}
