// One request path for every resource: the API key header, the `{ body }` unwrapping, the error
// classes, and retries with backoff on 429, 5xx and network failures (a POST carries an
// Idempotency-Key, so that a retry is safe).
import { APIConnectionError, APIConnectionTimeoutError, APIError, type KinoError } from './errors.ts';
import type { ErrorEnvelope } from './types.ts';
import { APIPromise } from './api-promise.ts';

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

/** What every call of the client takes last: per-call settings over the client's. */
export interface CallOptions {
  signal?: AbortSignal;
  /** This call's timeout per attempt, in ms, instead of the client's `timeoutMs`. */
  timeoutMs?: number;
  /** This call's retries instead of the client's `maxRetries` (0: one attempt). */
  maxRetries?: number;
  /**
   * A POST's `Idempotency-Key` instead of a new one per call: send the same key again (after a
   * crash, from another process) and the API replays the first answer rather than acting twice.
   */
  idempotencyKey?: string;
}

export interface RequestOptions extends CallOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Answer statuses returned as data rather than thrown (health's 503). */
  acceptStatuses?: number[];
}

/** What `fetchWithRetries` takes besides the request. */
export interface FetchOptions extends Pick<RequestOptions, 'signal' | 'maxRetries' | 'timeoutMs' | 'acceptStatuses'> {
  /**
   * A body to send in chunks as the connection takes them (the request's own body is ignored). The
   * attempt is then timed by progress (`UploadTimer`), however long the whole upload takes: a
   * file's upload time depends on its size and the link, and a bound on the total would abort a
   * large upload on a slow link and restart it from zero.
   */
  upload?: Blob;
  /** With `upload`: the bytes of it handed to the connection by this attempt (a retry starts again at 0). */
  onUploadProgress?: (bytes: number) => void;
}

/**
 * Whether an upload's body is streamed (read and sent as the connection takes it, timed by progress):
 * in Node (and Bun and Deno, which answer to `process.versions.node`), whose fetch streams a body
 * over HTTP/1.1. A browser's fetch streams one only over HTTP/2 in Chromium, and not at all in
 * Firefox and Safari: there the Blob itself is the body (a page that needs upload progress uses
 * `@kino/sdk/browser`'s `uploadFile`).
 */
const streamsRequestBodies =
  typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === 'string';

/** The size of the pieces an upload is read and sent in. */
const uploadChunkBytes = 64 * 1024;

/**
 * Times one upload attempt by progress. While the body is sent, the attempt fails once the
 * connection has taken no chunk for `ms`. Once all of it is handed over, the socket buffers may
 * still hold megabytes that drain at the link's speed, out of sight: the answer is then awaited
 * for `ms` plus as long as the sending took.
 */
class UploadTimer {
  private readonly controller = new AbortController();
  private readonly started = performance.now();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** What went wrong once `signal` has fired, e.g. `made no progress for 60000 ms`. */
  expired = '';

  private readonly ms: number;
  constructor(ms: number) {
    this.ms = ms;
    this.progressed();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  progressed(): void {
    this.arm(this.ms, `made no progress for ${this.ms} ms`);
  }

  sent(): void {
    const wait = this.ms + Math.round(performance.now() - this.started);
    this.arm(wait, `was not answered within ${wait} ms of its last byte`);
  }

  clear(): void {
    clearTimeout(this.timer);
  }

  private arm(ms: number, expired: string): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.expired = expired;
      this.controller.abort(new DOMException(expired, 'TimeoutError'));
    }, ms);
  }
}

/**
 * The blob as a stream read one chunk at a time, only when the connection asks for more (so a
 * stalled connection stops the reading), telling `timer` of each chunk taken and of the end.
 */
function chunkedStream(
  blob: Blob,
  timer: UploadTimer,
  onProgress?: (bytes: number) => void,
): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (offset >= blob.size) {
          timer.sent();
          return controller.close();
        }
        timer.progressed();
        const chunk = new Uint8Array(await blob.slice(offset, offset + uploadChunkBytes).arrayBuffer());
        offset += chunk.byteLength;
        controller.enqueue(chunk);
        onProgress?.(offset);
      },
    },
    { highWaterMark: 0 },
  );
}

/** A URL as errors show it: without its query, which for a signed URL holds the signature. */
function shownUrl(url: string): string {
  return url.split('?')[0]!;
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
  readonly options: HttpOptions;
  constructor(options: HttpOptions) {
    this.options = options;
  }

  /** Sends one API call (path relative to the API root) and answers the `body` of the answer. */
  request<T>(method: string, path: string, options: RequestOptions = {}): APIPromise<T> {
    return new APIPromise(
      this.send(method, this.url(path, options.query), options).then(({ response, payload }) => ({
        data: (payload as { body: T } | undefined)?.body as T,
        response,
      })),
    );
  }

  /** Like `request`, also returning the status (for calls that accept a non-2xx answer). */
  async requestWithStatus<T>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<{ status: number; body: T }> {
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

  private async send(
    method: string,
    url: string,
    options: RequestOptions,
  ): Promise<{ response: Response; payload: unknown }> {
    const headers: Record<string, string> = {
      'X-Api-Key': this.options.apiKey,
      Accept: 'application/json',
      'User-Agent': 'kino-sdk/0.1.0',
    };
    const hasBody = options.body !== undefined;
    if (hasBody) headers['Content-Type'] = 'application/json';
    // A POST retried after a lost answer must not act twice: one key per call, the same on every
    // retry of it, so the API replays the first answer instead of repeating the effect.
    if (method === 'POST' && options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
    else if (method === 'POST' && (options.maxRetries ?? this.options.maxRetries) > 0)
      headers['Idempotency-Key'] = crypto.randomUUID();
    const init: RequestInit = { method, headers, body: hasBody ? JSON.stringify(options.body) : undefined };
    const response = await this.fetchWithRetries(url, init, options);
    const payload = await parseJson(response);
    if (response.ok || options.acceptStatuses?.includes(response.status)) return { response, payload };
    throw APIError.fromResponse(response.status, payload as Partial<ErrorEnvelope> | undefined, response.headers);
  }

  /**
   * Fetches with retries: answers with a retryable status are repeated until `maxRetries` is spent,
   * then returned for the caller to turn into an error. Used for the API and for storage uploads
   * (`upload`), each attempt of which sends the body anew.
   *
   * A loop rather than p-retry: the SDK has no runtime dependencies (it needs only the platform's
   * fetch, so it runs wherever fetch does), each wait comes from the failed answer's headers
   * (Retry-After, X-RateLimit-Reset) rather than from the attempt number, and giving up returns the
   * last answer instead of throwing.
   */
  async fetchWithRetries(
    url: string,
    init: RequestInit,
    {
      signal,
      maxRetries = this.options.maxRetries,
      timeoutMs = this.options.timeoutMs,
      acceptStatuses = [],
      upload,
      onUploadProgress,
    }: FetchOptions = {},
  ): Promise<Response> {
    const sleep = this.options.sleep ?? sleepFor;
    for (let attempt = 0; ; attempt += 1) {
      let response: Response | undefined;
      let failure: KinoError | undefined;
      const uploadTimer = upload && streamsRequestBodies ? new UploadTimer(timeoutMs) : undefined;
      // A Blob body sent whole reports nothing until it is answered: no bound can tell a stalled
      // upload from a large one, so only the caller's signal ends it.
      const timeout = uploadTimer?.signal ?? (upload ? undefined : AbortSignal.timeout(timeoutMs));
      const body = upload
        ? uploadTimer
          ? { body: chunkedStream(upload, uploadTimer, onUploadProgress), duplex: 'half' }
          : { body: upload }
        : {};
      const signals = [signal, timeout].filter((one): one is AbortSignal => one !== undefined);
      try {
        response = await this.options.fetch(url, {
          ...init,
          ...body,
          ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}),
        });
      } catch (error) {
        if (signal?.aborted) throw error; // the caller cancelled: not ours to retry
        failure = !timeout?.aborted
          ? new APIConnectionError(`could not reach ${shownUrl(url)}: ${(error as Error).message}`, { cause: error })
          : uploadTimer
            ? new APIConnectionTimeoutError(`upload to ${shownUrl(url)} ${uploadTimer.expired}`, { cause: error })
            : new APIConnectionTimeoutError(`no answer from ${shownUrl(url)} within ${timeoutMs} ms`, { cause: error });
      } finally {
        uploadTimer?.clear();
      }
      const retryable =
        failure !== undefined ||
        (response !== undefined && isRetryableStatus(response.status) && !acceptStatuses.includes(response.status));
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
