// `Idempotency-Key` on every POST: a client that lost a response can send the request again and get
// the first response back instead of a second effect (or a 409 for the effect it already had).
//
// - The key is 1–255 visible ASCII characters (else 400 `invalid_idempotency_key`), scoped to the
//   organization and the API key that sent it.
// - The first request with a key reserves it, runs, and leaves its response (status and body) for
//   24 h; the same request again (same method, path and body) gets that response replayed, marked
//   `Idempotent-Replayed: true`. The same key with another request is 422 `idempotency_key_reused`;
//   while the first still runs, 409 `idempotency_key_in_use`.
// - A 5xx is not kept: it means nothing was done (or the client should try again), so the key is
//   released and a retry runs anew. Requests refused before they run (401, 403, 429, a body that
//   fails validation) keep nothing either: the key is looked at after those checks, which answer
//   the same way every time.
// - The keys live in the database, so every API instance sees the same ones; expired keys are
//   taken over when they come again and purged now and then.
import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  completeIdempotencyKey,
  deleteIdempotencyKeysBefore,
  findIdempotencyKey,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
  type IdempotencyKeyId,
} from '@kino/database/repositories';
import type { Db, IdempotencyKey } from '@kino/database';
import { clockOf, type RouteOptions } from '../deps.ts';
import { callerId } from './access.ts';
import { ConflictError, ServiceUnavailableError, UnprocessableEntityError } from '../http/errors.ts';
import { ErrorSchema, IDEMPOTENCY_KEY_PATTERN } from '../schemas/common.ts';

const HEADER = 'idempotency-key';
const REPLAY_WINDOW_MS = 24 * 3600_000;
/** A reservation still without a response after this long was left by a request that died with
 *  its instance (requests take seconds): the key may be taken over rather than stay locked a day. */
const ABANDONED_AFTER_MS = 5 * 60_000;
const PURGE_INTERVAL_MS = 10 * 60_000;

const IdempotencyHeaders = Type.Object({
  [HEADER]: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        'Makes the POST safe to retry: the same request with the same key within 24 h gets the first response again. ' +
        '1–255 visible ASCII characters, e.g. a UUID; per API key.',
    }),
  ),
});

/** The request a key was first used for: method, path with query, and the body as validated (keys sorted). */
function fingerprintOf(request: FastifyRequest): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([k, v]) => [k, canonical(v)]),
          )
        : value;
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${JSON.stringify(canonical(request.body ?? null))}`)
    .digest('hex');
}

/**
 * Reserves the key for this request (`reserved`), or returns the request that holds it; `running`
 * when it stays held by another without being readable (released and taken again in between).
 */
async function claimKey(
  db: Db,
  id: IdempotencyKeyId,
  fingerprint: string,
  at: Date,
): Promise<'reserved' | 'running' | IdempotencyKey> {
  // Twice: a key released or purged between the two statements is free on the second try.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const reserved = await reserveIdempotencyKey(db, id, {
      fingerprint,
      now: at,
      expiredBefore: new Date(at.getTime() - REPLAY_WINDOW_MS),
      abandonedBefore: new Date(at.getTime() - ABANDONED_AFTER_MS),
    });
    if (reserved) return 'reserved';
    const first = await findIdempotencyKey(db, id);
    if (first) return first;
  }
  return 'running';
}

async function idempotencyPlugin(app: FastifyInstance, { deps }: RouteOptions): Promise<void> {
  const now = clockOf(deps);

  // Every POST accepts the header: validated, with its named code, and listed in the OpenAPI document.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST') || route.config?.auth === 'none') return;
    if (route.schema?.headers) throw new Error(`POST ${route.url} declares headers: merge Idempotency-Key into them`);
    route.schema = {
      ...route.schema,
      headers: IdempotencyHeaders,
      response: { 409: ErrorSchema, 422: ErrorSchema, ...(route.schema?.response as object | undefined) },
    };
    route.config = {
      ...route.config,
      validationCodes: { ...route.config?.validationCodes, [`headers.${HEADER}`]: 'invalid_idempotency_key' },
    };
  });

  app.addHook('preHandler', async (request, reply) => {
    const key = request.headers[HEADER];
    if (request.method !== 'POST' || typeof key !== 'string' || !request.access) return;
    const id: IdempotencyKeyId = { orgId: request.access.orgId, apiKeyId: callerId(request.access.caller), key };
    const fingerprint = fingerprintOf(request);
    const at = now();
    let claim: Awaited<ReturnType<typeof claimKey>>;
    try {
      claim = await claimKey(deps.db, id, fingerprint, at);
    } catch (error) {
      request.log.error({ err: error }, 'idempotency key lookup failed');
      throw new ServiceUnavailableError(
        'The API cannot check idempotency keys right now (database unavailable). Try again shortly.',
      );
    }
    if (claim === 'reserved') {
      request.idempotencyReservation = { id, reservedAt: at };
      return;
    }
    if (claim !== 'running' && claim.fingerprint !== fingerprint) {
      throw new UnprocessableEntityError(
        'idempotency_key_reused',
        'This Idempotency-Key was used for another request (method, path or body) in the last 24 hours: use a new key for a new request.',
      );
    }
    if (claim === 'running' || claim.response_status === null) {
      throw new ConflictError(
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still running: retry once it has answered.',
      );
    }
    reply.header('Idempotent-Replayed', 'true').code(claim.response_status);
    if (claim.response_content_type) reply.type(claim.response_content_type);
    return reply.send(claim.response_body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const reservation = request.idempotencyReservation;
    if (!reservation) return payload;
    request.idempotencyReservation = undefined;
    try {
      if (reply.statusCode >= 500 || typeof payload !== 'string') {
        await releaseIdempotencyKey(deps.db, reservation.id, reservation.reservedAt);
      } else {
        const contentType = reply.getHeader('content-type');
        await completeIdempotencyKey(deps.db, reservation.id, reservation.reservedAt, {
          status: reply.statusCode,
          contentType: typeof contentType === 'string' ? contentType : null,
          body: payload,
        });
      }
    } catch (error) {
      // The response still goes out; the key stays reserved until it counts as abandoned.
      request.log.warn({ err: error }, 'could not record the response of an idempotency key');
    }
    return payload;
  });

  // Expired keys are of no use: drop them now and then (any instance may; the delete is idempotent).
  const purge = setInterval(() => {
    deleteIdempotencyKeysBefore(deps.db, new Date(now().getTime() - REPLAY_WINDOW_MS)).catch((error: unknown) =>
      app.log.warn({ err: error }, 'idempotency key purge failed'),
    );
  }, PURGE_INTERVAL_MS);
  purge.unref();
  app.addHook('onClose', async () => clearInterval(purge));
}

export default fp(idempotencyPlugin, { name: 'kino-idempotency', fastify: '5.x', dependencies: ['kino-access'] });
