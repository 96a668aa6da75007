// Request ids (docs/decisions/api.md#request-ids): every API response carries `X-Request-Id`, and
// every log line of the request names it, so a client quoting one finds the server's story. A
// client that sends its own id (a tracing system's, a proxy's) gets it back, when it is a short
// token; anything else is replaced, so a header cannot inject text into logs or responses.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

/** What a client's id may be: 1–128 characters of URL- and log-safe punctuation and alphanumerics (UUIDs, ULIDs, W3C trace ids). */
const clientRequestId = /^[A-Za-z0-9._:+=@/-]{1,128}$/;

/** The client's `X-Request-Id` when it is valid, else a new `req_` id. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  if (typeof given === 'string' && clientRequestId.test(given)) return given;
  return `req_${randomBytes(12).toString('base64url')}`;
}
