// One request path for every resource: the API key header, the `{ body }` unwrapping, the error
// classes, and retries with backoff on 429, 5xx and network failures.
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  type KinoError,
} from './errors.ts';
import type { ErrorEnvelope } from './types.ts';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface HttpOptions {
  apiUrl: string;
  apiKey: string;
  maxRetries: number;
  timeoutMs: number;
  /** A wait the API asks for (Retry-After, rate-limit reset) longer than this is not waited out. */
  maxRetryDelayMs: number;
  fetch: FetchLike;
  /** For tests: how to wait between attempts. */
  sleep?: (ms: number) => Promise<void>;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  signal?: AbortSignal;
  /** Override the client's retries for this call. */
  maxRetries?: number;
  /** Answer statuses returned as data rather than thrown (health's 503). */
  acceptStatuses?: number[];
}

const sleepFor = (ms: number) => new Promise<void>((resolveSleep) => setTimeout(resolveSleep, ms));

/** Whether a failed attempt is worth repeating: rate limits, server errors, and no answer at all. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * How long to wait before attempt `retry` (1-based): what the API asked for (Retry-After seconds or
 * date, else the X-RateLimit-Reset Unix time on a 429), otherwise exponential backoff with jitter.
 */
export function retryDelayMs(retry: number, headers: Headers | undefined, now = Date.now()): number {
  const retryAfter = headers?.get('retry-after');
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const reset = Number(headers?.get('x-ratelimit-reset'));
  const remaining = headers?.get('x-ratelimit-remaining');
  if (Number.isFinite(reset) && reset > 0 && remaining === '0') return Math.max(0, reset * 1000 - now);
  const base = Math.min(500 * 2 ** (retry - 1), 8000);
  return base * (0.75 + Math.random() * 0.5);
}

export class HttpClient {
  constructor(readonly options: HttpOptions) {}

  /** Sends one API call (path relative to the API root) and returns the `body` of the answer. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const { payload } = await this.send(method, this.url(path, options.query), options);
    return (payload as { body: T } | undefined)?.body as T;
  }

  /** Like `request`, also returning the status (for calls that accept a non-2xx answer). */
  async requestWithStatus<T>(method: string, path: string, options: RequestOptions = {}): Promise<{ status: number; body: T }> {
    const { response, payload } = await this.send(method, this.url(path, options.query), options);
    return { status: response.status, body: (payload as { body: T } | undefined)?.body as T };
  }

  url(path: string, query?: RequestOptions['query']): string {
    const url = new URL(`${this.options.apiUrl.replace(/\/+$/, '')}${path}`);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  private async send(method: string, url: string, options: RequestOptions): Promise<{ response: Response; payload: unknown }> {
    const headers: Record<string, string> = {
      'X-Api-Key': this.options.apiKey,
      Accept: 'application/json',
      'User-Agent': 'kino-sdk/0.1.0',
    };
    const hasBody = options.body !== undefined;
    if (hasBody) headers['Content-Type'] = 'application/json';
    const init: RequestInit = { method, headers, body: hasBody ? JSON.stringify(options.body) : undefined };
    const response = await this.fetchWithRetries(url, init, options);
    const payload = await parseJson(response);
    if (response.ok || options.acceptStatuses?.includes(response.status)) return { response, payload };
    throw APIError.fromResponse(response.status, payload as Partial<ErrorEnvelope> | undefined, response.headers);
  }

  /**
   * Fetches with retries: answers with a retryable status are repeated until `maxRetries` is spent,
   * then returned for the caller to turn into an error. Used for the API and for storage uploads.
   *
   * A loop rather than p-retry: the SDK has no runtime dependencies (it needs only the platform's
   * fetch, so it runs wherever fetch does), each wait comes from the failed answer's headers
   * (Retry-After, X-RateLimit-Reset) rather than from the attempt number, and giving up returns the
   * last answer instead of throwing.
   */
  async fetchWithRetries(
    url: string,
    init: RequestInit,
    { signal, maxRetries = this.options.maxRetries, acceptStatuses = [] }: Pick<RequestOptions, 'signal' | 'maxRetries' | 'acceptStatuses'> = {},
  ): Promise<Response> {
    const sleep = this.options.sleep ?? sleepFor;
    for (let attempt = 0; ; attempt += 1) {
      let response: Response | undefined;
      let failure: KinoError | undefined;
      const timeout = AbortSignal.timeout(this.options.timeoutMs);
      try {
        response = await this.options.fetch(url, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
      } catch (error) {
        if (signal?.aborted) throw error; // the caller cancelled: not ours to retry
        failure = timeout.aborted
          ? new APIConnectionTimeoutError(`no answer from ${url} within ${this.options.timeoutMs} ms`, { cause: error })
          : new APIConnectionError(`could not reach ${url}: ${(error as Error).message}`, { cause: error });
      }
      const retryable = failure !== undefined || (response !== undefined && isRetryableStatus(response.status) && !acceptStatuses.includes(response.status));
      if (!retryable || attempt >= maxRetries) {
        if (failure) throw failure;
        return response!;
      }
      const delay = retryDelayMs(attempt + 1, response?.headers);
      if (delay > this.options.maxRetryDelayMs) {
        // The wait asked for is longer than we are willing to hold the caller: report it now.
        if (failure) throw failure;
        return response!;
      }
      await response?.body?.cancel().catch(() => undefined);
      await sleep(delay);
    }
  }
}

async function parseJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 500) };
  }
}
