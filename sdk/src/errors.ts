// One error class per status family, all carrying the API's envelope (status, code, detail,
// errors), so callers branch with `instanceof` and read the named condition from `code`.
import type { ErrorDetail, ErrorEnvelope, VideoDetails } from './types.ts';

/** Base of every error the SDK throws. */
export class KinoError extends Error {
  override name = 'KinoError';
}

/** The API answered with an error status. */
export class APIError extends KinoError {
  override name = 'APIError';
  /** HTTP status. */
  readonly status: number;
  /** The named condition, e.g. `video_not_found`; `unknown` when the body had none. */
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  /** Per-field problems of a validation error. */
  readonly errors: ErrorDetail[];
  readonly headers: Headers;
  /** The response's `X-Request-Id`: quote it to the operator, whose logs name it. */
  readonly requestId: string | undefined;

  constructor(status: number, envelope: Partial<ErrorEnvelope> | undefined, headers: Headers) {
    const detail = envelope?.detail ?? envelope?.title ?? `HTTP ${status}`;
    super(`${status} ${envelope?.code ?? 'unknown'}: ${detail}`);
    this.status = status;
    this.code = envelope?.code ?? 'unknown';
    this.title = envelope?.title ?? '';
    this.detail = detail;
    this.errors = envelope?.errors ?? [];
    this.headers = headers;
    this.requestId = headers.get('x-request-id') ?? undefined;
  }

  /**
   * The error class for a status, so `catch (e) { if (e instanceof NotFoundError) ... }` works.
   * @example
   * const error = APIError.fromResponse(404, { code: 'video_not_found', detail: 'No such video' }, new Headers());
   * error instanceof NotFoundError; // true
   */
  static fromResponse(status: number, envelope: Partial<ErrorEnvelope> | undefined, headers: Headers): APIError {
    if (status === 400) return new BadRequestError(status, envelope, headers);
    if (status === 401) return new AuthenticationError(status, envelope, headers);
    if (status === 403) return new PermissionDeniedError(status, envelope, headers);
    if (status === 404) return new NotFoundError(status, envelope, headers);
    if (status === 409) return new ConflictError(status, envelope, headers);
    if (status === 422) return new UnprocessableEntityError(status, envelope, headers);
    if (status === 429) return new RateLimitError(status, envelope, headers);
    if (status >= 500) return new InternalServerError(status, envelope, headers);
    return new APIError(status, envelope, headers);
  }
}

/** 400: invalid parameters (`invalid_page_size`, `invalid_file_size`, `already_deleted`, ...). */
export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}
/** 401: missing or invalid API key. */
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}
/** 403: a valid key without permission (another environment or organization). */
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}
/** 404: `video_not_found`, `environment_not_found`, ... */
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}
/** 409: `processing_in_progress`. */
export class ConflictError extends APIError {
  override name = 'ConflictError';
}
/** 422: request validation failed (file format, codec). */
export class UnprocessableEntityError extends APIError {
  override name = 'UnprocessableEntityError';
}
/** 429: `rate_limit_exceeded`; thrown once retries are spent or the reset is too far away. */
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
  /** When the limit resets (from `X-RateLimit-Reset`), if the API said. */
  get resetAt(): Date | undefined {
    const reset = Number(this.headers.get('x-ratelimit-reset'));
    return Number.isFinite(reset) && reset > 0 ? new Date(reset * 1000) : undefined;
  }
}
/** 5xx, 503 (a dependency down) included. */
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}

/** No answer: the connection failed or was reset. */
export class APIConnectionError extends KinoError {
  override name = 'APIConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No answer within the request timeout. */
export class APIConnectionTimeoutError extends APIConnectionError {
  override name = 'APIConnectionTimeoutError';
}

/** Storage refused the upload (an expired or tampered URL, a Content-Type or a size other than the URL was issued for). */
export class UploadError extends KinoError {
  override name = 'UploadError';
  readonly status: number;
  readonly responseText: string;
  constructor(
    status: number,
    /** Storage's own answer (S3 XML). */
    responseText: string,
  ) {
    super(
      `storage answered ${status} to the upload: ${/<Code>([^<]+)<\/Code>/.exec(responseText)?.[1] ?? responseText.slice(0, 200)}`,
    );
    this.status = status;
    this.responseText = responseText;
  }
}

/** `videos.waitUntilReady`: the video ended in `failed`. */
export class VideoProcessingFailedError extends KinoError {
  override name = 'VideoProcessingFailedError';
  readonly video: VideoDetails;
  constructor(video: VideoDetails) {
    super(`video ${video.id} failed to process`);
    this.video = video;
  }
}

/** `videos.waitUntilReady`: still transcoding when the wait ran out. */
export class WaitTimeoutError extends KinoError {
  override name = 'WaitTimeoutError';
  readonly videoId: string;
  readonly timeoutMs: number;
  constructor(videoId: string, timeoutMs: number) {
    super(`video ${videoId} was still transcoding after ${Math.round(timeoutMs / 1000)} s`);
    this.videoId = videoId;
    this.timeoutMs = timeoutMs;
  }
}
