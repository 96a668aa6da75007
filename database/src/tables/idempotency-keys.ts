import type { Selectable } from 'kysely';

/**
 * A POST sent with an `Idempotency-Key`, per organization and API key: reserved while the request
 * runs (no response yet), then holding its first response, replayed to the same request for 24 h.
 */
export interface IdempotencyKeysTable {
  org_id: string;
  api_key_id: string;
  idempotency_key: string;
  /** SHA-256 of the method, path and body: the same key with another request is refused. */
  fingerprint: string;
  /** When the first request arrived: the replay window and the in-progress lock count from here. */
  created_at: Date;
  /** Null while the first request runs. */
  response_status: number | null;
  response_content_type: string | null;
  response_body: string | null;
}
export type IdempotencyKey = Selectable<IdempotencyKeysTable>;
