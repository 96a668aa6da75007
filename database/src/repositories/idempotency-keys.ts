// Idempotency keys of POST requests: reserved while the first request runs, then holding its
// response. Shared by every API instance through the database.
import type { Db } from '../database.ts';
import type { IdempotencyKey } from '../schema.ts';

/** Which key: the one a given API key sent for its organization. */
export interface IdempotencyKeyId {
  orgId: string;
  apiKeyId: string;
  key: string;
}

/**
 * Reserves the key for a request about to run; true when this caller holds it. A key already there
 * is taken over only when it has expired (created before `expiredBefore`) or was left running by
 * a request that never finished (no response, created before `abandonedBefore`). One atomic upsert,
 * so of concurrent callers exactly one gets the reservation.
 */
export async function reserveIdempotencyKey(
  db: Db,
  id: IdempotencyKeyId,
  {
    fingerprint,
    now,
    expiredBefore,
    abandonedBefore,
  }: { fingerprint: string; now: Date; expiredBefore: Date; abandonedBefore: Date },
): Promise<boolean> {
  const reserved = await db
    .insertInto('idempotency_keys')
    .values({ org_id: id.orgId, api_key_id: id.apiKeyId, idempotency_key: id.key, fingerprint, created_at: now })
    .onConflict((oc) =>
      oc
        .columns(['org_id', 'api_key_id', 'idempotency_key'])
        .doUpdateSet({
          fingerprint,
          created_at: now,
          response_status: null,
          response_content_type: null,
          response_body: null,
        })
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.created_at', '<', expiredBefore),
            eb.and([
              eb('idempotency_keys.response_status', 'is', null),
              eb('idempotency_keys.created_at', '<', abandonedBefore),
            ]),
          ]),
        ),
    )
    .returning('idempotency_key')
    .executeTakeFirst();
  return reserved !== undefined;
}

export async function findIdempotencyKey(db: Db, id: IdempotencyKeyId): Promise<IdempotencyKey | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('org_id', '=', id.orgId)
    .where('api_key_id', '=', id.apiKeyId)
    .where('idempotency_key', '=', id.key)
    .executeTakeFirst();
}

/**
 * Records the first response of the request that holds the reservation made at `reservedAt` (a
 * reservation another request has taken over since is left alone).
 */
export async function completeIdempotencyKey(
  db: Db,
  id: IdempotencyKeyId,
  reservedAt: Date,
  response: { status: number; contentType: string | null; body: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({
      response_status: response.status,
      response_content_type: response.contentType,
      response_body: response.body,
    })
    .where('org_id', '=', id.orgId)
    .where('api_key_id', '=', id.apiKeyId)
    .where('idempotency_key', '=', id.key)
    .where('created_at', '=', reservedAt)
    .where('response_status', 'is', null)
    .execute();
}

/** Gives the reservation made at `reservedAt` up (no response worth replaying): a retry runs anew. */
export async function releaseIdempotencyKey(db: Db, id: IdempotencyKeyId, reservedAt: Date): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('org_id', '=', id.orgId)
    .where('api_key_id', '=', id.apiKeyId)
    .where('idempotency_key', '=', id.key)
    .where('created_at', '=', reservedAt)
    .where('response_status', 'is', null)
    .execute();
}

/** Drops keys created before `before` (expired). */
export async function deleteIdempotencyKeysBefore(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
