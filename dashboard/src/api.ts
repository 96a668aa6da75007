// The dashboard's one way to the server: same-origin fetch with the session cookie. Every call that
// changes something carries the session's CSRF token (the server refuses it otherwise). Both the
// ordinary API (`/v1/api/...`) and the dashboard's own routes (`/dashboard/api/...`) answer
// `{ body: ... }` or the error envelope `{ title, status, detail, code }`.
import type { ErrorEnvelope } from '@kino/proto/contract';

/** An error answer of the server, with the envelope's fields. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly retryAt?: number;
  constructor(
    status: number,
    code: string,
    detail: string,
    /** For a 429: when the limit's window ends (the answer's Retry-After), in ms since the epoch. */
    retryAt?: number,
  ) {
    super(`${status} ${code}: ${detail}`);
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.retryAt = retryAt;
  }
}

/** Whether a call was refused by a rate limit (429). */
export function isRateLimited(error: unknown): error is ApiError & { retryAt: number } {
  return error instanceof ApiError && error.status === 429 && error.retryAt !== undefined;
}

/**
 * How long a query waits before asking again after a 429: until the limit's window ends, never
 * sooner (every attempt in the window would be refused and counted). Undefined for anything else.
 */
export function rateLimitWaitMs(error: unknown): number | undefined {
  return isRateLimited(error) ? Math.max(1000, error.retryAt - Date.now()) : undefined;
}

/**
 * Whether a failed query is tried again at once (react-query's `retry`): a network failure or a 5xx
 * twice; a 4xx never, a 429 included (it waits for Retry-After instead: `rateLimitWaitMs`).
 */
export function retryQuery(failures: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status < 500) return false;
  return failures < 2;
}

/** Retry-After: seconds, or an HTTP date. */
function retryAtOf(response: Response): number | undefined {
  const value = response.headers.get('Retry-After');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Date.now() + seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : date;
}

let csrfToken: string | undefined;

/** Set by the session (session.tsx) from GET /dashboard/api/session. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** The ordinary API's root: the browser calls it with its session like any client with a key. */
export const API_ROOT = '/v1/api';

/**
 * Calls the server and returns the response's `body` (undefined for 204). Throws ApiError for an
 * error answer. A 401 means the session ended: the page goes to sign-in.
 */
export async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const method = (init.method ?? 'GET').toUpperCase();
  const headers = new Headers(init.headers);
  if (init.body !== undefined && typeof init.body === 'string' && !headers.has('Content-Type')) {
    headers.set('Content-Type', 'application/json');
  }
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers.set('X-CSRF-Token', csrfToken);
  const response = await fetch(path, { ...init, method, headers, credentials: 'same-origin' });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const parsed: unknown = text ? safeJson(text) : undefined;
  if (!response.ok) {
    const envelope = (parsed ?? {}) as Partial<ErrorEnvelope>;
    throw new ApiError(
      response.status,
      envelope.code ?? 'unknown_error',
      envelope.detail ?? envelope.title ?? response.statusText,
      response.status === 429 ? retryAtOf(response) : undefined,
    );
  }
  return (parsed as { body: T }).body;
}

/** A JSON body for `api()`: `api(path, json('POST', {...}))`. */
export function json(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', body: unknown): RequestInit {
  return { method, body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Where the browser goes to sign in, coming back to the page it was on. */
export function signInUrl(returnTo: string = location.pathname + location.search): string {
  return `/dashboard/auth/login?returnTo=${encodeURIComponent(returnTo)}`;
}
