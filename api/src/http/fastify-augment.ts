// What routes declare in `config`, and what the access hook leaves on the request.
import type { ApiKey, Environment } from '@kino/database';
import type { RateLimitCategory } from '../plugins/rate-limits.ts';
import type { IdempotencyKeyId } from '@kino/database/repositories';
import type { DashboardUser } from '../sessions/sessions.ts';

/** Who is calling: an API key, or a dashboard session (which acts like a full key on its user's organizations). */
export type Caller = { kind: 'apiKey'; key: ApiKey } | { kind: 'session'; user: DashboardUser };

export interface Access {
  caller: Caller;
  /** The organization of the path, which the key may act on. */
  orgId: string;
  /** The environment of the path (`{envID}`), checked to exist in the organization. */
  environment?: PathEnvironment;
}

/**
 * What the access check keeps of the path's environment: what never changes. Its settings change
 * (just-in-time): a route that needs them reads the row.
 */
export type PathEnvironment = Pick<Environment, 'id' | 'org_id'>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `none`: answered without an API key (health, the OpenAPI document). `session`: a dashboard
     * session only (the dashboard's own routes). Default: an API key or a dashboard session.
     */
    auth?: 'none' | 'apiKey' | 'session';
    /** The rate-limit category the route counts against (default `general`). */
    rateLimit?: RateLimitCategory;
    /** Named error codes for validation errors by location, e.g. `{ 'body.fileSize': 'invalid_file_size' }`. */
    validationCodes?: Record<string, string>;
  }
  interface FastifyRequest {
    /** Set by the access hook on every route that requires an API key and has an organization in its path. */
    access?: Access;
    /** Set by the access hook for every authenticated request. */
    caller?: Caller;
    /** Set by the idempotency hook when this request holds its Idempotency-Key: its response is kept. */
    idempotencyReservation?: { id: IdempotencyKeyId; reservedAt: Date };
  }
}
