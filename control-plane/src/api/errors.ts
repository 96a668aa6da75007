// Every error the API answers with is an ApiError: an HTTP status, a stable `code` naming the
// condition (the spec's named errors), a human `detail`, and for validation the offending fields.
// One handler (error-handler.ts) turns them into the spec's envelope.

export interface FieldError {
  message: string;
  /** Where the value came from: `body.<field>`, `query.<field>` or `params.<field>`. */
  location: string;
  /** The offending value (null when the field is missing). */
  value: unknown;
}

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    readonly detail: string,
    readonly errors?: FieldError[],
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

/** 400: a request that fails validation, with the field errors and the named condition. */
export class ValidationError extends ApiError {
  constructor(code: string, detail: string, errors: FieldError[]) {
    super(400, code, detail, errors);
  }
}

/** Other 400s that are about the request as a whole (e.g. `already_deleted`, `invalid_json`). */
export class BadRequestError extends ApiError {
  constructor(code: string, detail: string) {
    super(400, code, detail);
  }
}

export class UnauthorizedError extends ApiError {
  constructor(detail: string) {
    super(401, 'unauthorized', detail);
  }
}

export class ForbiddenError extends ApiError {
  constructor(detail: string) {
    super(403, 'forbidden', detail);
  }
}

/** 403: a dashboard session's state-changing request without its CSRF token (a forged cross-site request, say). */
export class CsrfTokenError extends ApiError {
  constructor(detail: string) {
    super(403, 'csrf_token_invalid', detail);
  }
}

/** 403: a signed-in dashboard user who is not a member of the organization in the path. */
export class NotMemberError extends ApiError {
  constructor(detail: string) {
    super(403, 'not_a_member', detail);
  }
}

/** 404 with the resource named in the code: `environment_not_found`, `video_not_found`, `not_found`... */
export class NotFoundError extends ApiError {
  constructor(code: string, detail: string) {
    super(404, code, detail);
  }
}

/** 405: the path exists, the method does not; `allow` lists the methods it answers. */
export class MethodNotAllowedError extends ApiError {
  constructor(
    method: string,
    readonly allow: string,
  ) {
    super(405, 'method_not_allowed', `${method} is not allowed here; this path answers ${allow}.`);
  }
}

/** 413: a request body larger than the API accepts. */
export class PayloadTooLargeError extends ApiError {
  constructor(detail: string) {
    super(413, 'payload_too_large', detail);
  }
}

/** 414: a path parameter longer than the router accepts. */
export class UriTooLongError extends ApiError {
  constructor(detail: string) {
    super(414, 'uri_too_long', detail);
  }
}

/** 415: a request body that is not JSON. */
export class UnsupportedMediaTypeError extends ApiError {
  constructor(detail: string) {
    super(415, 'unsupported_media_type', detail);
  }
}

/** 409: the resource is in a state that refuses the operation (`processing_in_progress`, `not_failed`). */
export class ConflictError extends ApiError {
  constructor(code: string, detail: string) {
    super(409, code, detail);
  }
}

/** 422: a well-formed request that cannot be taken as it is (`idempotency_key_reused`). */
export class UnprocessableEntityError extends ApiError {
  constructor(code: string, detail: string) {
    super(422, code, detail);
  }
}

export class RateLimitError extends ApiError {
  constructor(detail: string) {
    super(429, 'rate_limit_exceeded', detail);
  }
}

/** 503: a dependency (database, Temporal, storage) is unavailable; nothing was changed. */
export class ServiceUnavailableError extends ApiError {
  constructor(detail: string) {
    super(503, 'service_unavailable', detail);
  }
}

/** The generic code of a validation error that names no specific condition. */
export const INVALID_REQUEST = 'invalid_request';

/** A storage call that failed: logged, and answered 503 (nothing was changed; the client tries again). */
export function storageUnavailable(error: unknown, log: { error: (o: object, m: string) => void }, doing: string): never {
  log.error({ err: error }, `${doing} failed`);
  throw new ServiceUnavailableError('Storage is unavailable; try again shortly.');
}
