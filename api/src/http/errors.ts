// Every error the API answers with is an ApiError: an HTTP status, a stable `code` naming the
// condition (the spec's named errors), a human `detail`, and for validation the offending fields.
// One handler (plugins/error-handler.ts) turns them into the spec's envelope.

import type { FieldError } from '@kino/proto/contract';

export type { FieldError };

export class ApiError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly detail: string;
  readonly errors?: FieldError[];
  constructor(statusCode: number, code: string, detail: string, errors?: FieldError[]) {
    super(detail);
    this.statusCode = statusCode;
    this.code = code;
    this.detail = detail;
    this.errors = errors;
    this.name = 'ApiError';
  }
}

/** 400: a request that fails validation, with the field errors and the named condition. */
export class ValidationError extends ApiError {
  constructor(code: string, detail: string, errors: FieldError[]) {
    super(400, code, detail, errors);
  }
}

/** An ApiError class whose code each use names: `new NotFoundError('video_not_found', detail)`. */
function errorWithCode(status: number) {
  return class extends ApiError {
    constructor(code: string, detail: string) {
      super(status, code, detail);
    }
  };
}

/** An ApiError class with one code: `new RateLimitError(detail)`. */
function errorOf(status: number, code: string) {
  return class extends ApiError {
    constructor(detail: string) {
      super(status, code, detail);
    }
  };
}

// The named errors, one line each: status, and the code when it is always the same.
/** Other 400s that are about the request as a whole (e.g. `already_deleted`, `invalid_json`). */
export const BadRequestError = errorWithCode(400);
export const UnauthorizedError = errorOf(401, 'unauthorized');
export const ForbiddenError = errorOf(403, 'forbidden');
/** A dashboard session's state-changing request without its CSRF token (a forged cross-site request, say). */
export const CsrfTokenError = errorOf(403, 'csrf_token_invalid');
/** A signed-in dashboard user who is not a member of the organization in the path. */
export const NotMemberError = errorOf(403, 'not_a_member');
/** The resource named in the code: `environment_not_found`, `video_not_found`, `not_found`... */
export const NotFoundError = errorWithCode(404);
/** The resource is in a state that refuses the operation (`processing_in_progress`, `not_failed`). */
export const ConflictError = errorWithCode(409);
/** A request body larger than the API accepts. */
export const PayloadTooLargeError = errorOf(413, 'payload_too_large');
/** A path parameter longer than the router accepts. */
export const UriTooLongError = errorOf(414, 'uri_too_long');
/** A request body that is not JSON. */
export const UnsupportedMediaTypeError = errorOf(415, 'unsupported_media_type');
/** A well-formed request that cannot be taken as it is (`idempotency_key_reused`). */
export const UnprocessableEntityError = errorWithCode(422);
export const RateLimitError = errorOf(429, 'rate_limit_exceeded');
/** A dependency (database, Temporal, storage) is unavailable; nothing was changed. */
export const ServiceUnavailableError = errorOf(503, 'service_unavailable');

/** 405: the path exists, the method does not; `allow` lists the methods it answers. */
export class MethodNotAllowedError extends ApiError {
  readonly allow: string;
  constructor(method: string, allow: string) {
    super(405, 'method_not_allowed', `${method} is not allowed here; this path answers ${allow}.`);
    this.allow = allow;
  }
}

/** The generic code of a validation error that names no specific condition. */
export const INVALID_REQUEST = 'invalid_request';

/** A storage call that failed: logged, and answered 503 (nothing was changed; the client tries again). */
export function storageUnavailable(
  error: unknown,
  log: { error: (o: object, m: string) => void },
  doing: string,
): never {
  log.error({ err: error }, `${doing} failed`);
  throw new ServiceUnavailableError('Storage is unavailable; try again shortly.');
}

/** A workflow that could not be started: logged, and the 503 to answer once the caller has undone its change. */
export function workflowServiceUnavailable(
  error: unknown,
  log: { error: (o: object, m: string) => void },
  doing: string,
): ApiError {
  log.error({ err: error }, `${doing} failed`);
  return new ServiceUnavailableError(
    `The workflow service is unavailable, so nothing was changed; try again shortly (${doing}).`,
  );
}
