// What routes declare in `config`, and what the access hook leaves on the request.
import type { ApiKey, Environment } from '../db/schema.ts';
import type { RateLimitCategory } from './rate-limits.ts';
import type { IdempotencyKeyId } from '../repositories/idempotency-keys.ts';

export interface Access {
  key: ApiKey;
  /** The organization of the path, which the key may act on. */
  orgId: string;
  /** The environment of the path (`{envID}`), checked to exist in the organization. */
  environment?: Environment;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `none`: answered without an API key (health, the OpenAPI document). Default: an API key is required. */
    auth?: 'none' | 'apiKey';
    /** The rate-limit category the route counts against (default `general`). */
    rateLimit?: RateLimitCategory;
    /** Named error codes for validation errors by location, e.g. `{ 'body.fileSize': 'invalid_file_size' }`. */
    validationCodes?: Record<string, string>;
  }
  interface FastifyRequest {
    /** Set by the access hook on every route that requires an API key. */
    access?: Access;
    /** Set by the idempotency hook when this request holds its Idempotency-Key: its response is kept. */
    idempotencyReservation?: { id: IdempotencyKeyId; reservedAt: Date };
  }
}
