// Fetching a URL ingest's source (POST .../videos/ingest; docs/decisions/uploads.md#ingest-from-a-url):
// the body streams into storage part by part, never whole in memory (one part is buffered at a
// time), and a dropped connection is resumed with an HTTP Range request from the byte reached.
// Free of Temporal: the activity (activities/ingest.ts) gives it a part sink over S3 multipart and
// heartbeats; the unit tests give it an in-memory sink and a local server.
import { Agent, request, type Dispatcher } from 'undici';
import { ACCEPTED_CONTAINERS_TEXT, sniffContainer, CONTAINER_SNIFF_BYTES } from '@kino/proto/contract';

/** Why an ingest failed, first in the video's failure reason (`<reason>: <what happened>`). */
export const ingestFailureReasons = {
  /** The source answered an HTTP error (404, 403, ...), or 5xx/no answer after every retry. */
  httpError: 'source_http_error',
  /** Over the size limit (5 GB), declared or streamed. */
  tooLarge: 'source_too_large',
  /** The body opens no container uploads accept (MP4, QuickTime, AVI, WebM, Matroska), or is empty. */
  unsupportedFormat: 'source_unsupported_format',
  /** The host resolves to a loopback, private, link-local or metadata address (the webhook guard). */
  addressRefused: 'source_address_refused',
} as const;
export type IngestFailureReason = (typeof ingestFailureReasons)[keyof typeof ingestFailureReasons];

/**
 * A fetch that cannot succeed as it is. `final`: retrying changes nothing (a 404, too large, a
 * refused address, not a video container); otherwise (a 5xx, no answer) the activity retries.
 */
export class SourceFetchError extends Error {
  override name = 'SourceFetchError';
  readonly reason: IngestFailureReason;
  readonly final: boolean;
  constructor(reason: IngestFailureReason, detail: string, final: boolean) {
    super(`${reason}: ${detail}`);
    this.reason = reason;
    this.final = final;
  }
}

/** Where the parts go: S3 multipart in the activity, memory in tests. */
export interface PartSink {
  /** Stores part `partNumber` (1-based; every part but the last is `partBytes` long). */
  writePart(partNumber: number, bytes: Buffer): Promise<void>;
  /** Drops every part stored: the fetch starts again from byte 0 (the server could not resume). */
  reset(): Promise<void>;
}

/** How the fetch reaches a URL: the dispatcher for its host (the guard's pinned addresses), or a refusal. */
export type DestinationCheck = (url: URL) => Promise<Dispatcher>;

export interface FetchSourceOptions {
  url: string;
  sink: PartSink;
  /** The size limit: a declared or streamed body over it fails `source_too_large`. */
  maxBytes: number;
  partBytes: number;
  /** Resolves and checks each host (every redirect too); answers the dispatcher to connect with. */
  destination: DestinationCheck;
  /** Parts already stored by an earlier attempt (all `partBytes` long): the fetch resumes after them. */
  storedParts?: number;
  /** The source's validator (ETag or Last-Modified) seen by that attempt, sent as If-Range. */
  validator?: string;
  /** Reconnections with Range after a dropped connection, within this call. */
  maxResumes?: number;
  /** Called after every stored part (the activity heartbeats it). */
  onProgress?: (progress: FetchProgress) => void;
  /** Waits before the nth resume; tests pass none. */
  resumeDelayMs?: (attempt: number) => number;
  /** Stops the fetch (the activity cancelled: the video was deleted); it rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface FetchProgress {
  /** Parts stored so far. */
  storedParts: number;
  /** Bytes received so far (stored and buffered). */
  receivedBytes: number;
  validator?: string;
}

export interface FetchedSource {
  sizeBytes: number;
  parts: number;
  /** How many times a dropped connection was resumed with Range. */
  resumes: number;
  /** Whether the server ignored a Range request and the fetch started again from byte 0. */
  restarted: boolean;
}

const maxRedirects = 5;
const userAgent = 'Kino-Ingest/1';

/** HTTP statuses worth retrying: the server may answer otherwise shortly. */
function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 425 || status === 429;
}

/** `bytes 100-199/1000` → {start: 100, total: 1000} (total undefined for `*`). */
function parseContentRange(header: string | undefined): { start: number; total?: number } | undefined {
  const match = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(header?.trim() ?? '');
  if (!match) return undefined;
  return { start: Number(match[1]), ...(match[2] !== '*' ? { total: Number(match[2]) } : {}) };
}

function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A strong ETag, else Last-Modified: what If-Range may carry so a changed source is sent whole. */
function validatorOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const etag = headerOf(headers, 'etag');
  if (etag && !etag.startsWith('W/')) return etag;
  return headerOf(headers, 'last-modified');
}

/** One GET (following redirects, each host checked): the response, its status already judged. */
async function open(
  url: string,
  destination: DestinationCheck,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  let target = new URL(url);
  for (let hop = 0; ; hop++) {
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new SourceFetchError(
        ingestFailureReasons.httpError,
        `${target.protocol} URLs cannot be fetched (http and https only)`,
        true,
      );
    }
    const dispatcher = await destination(target);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(target, {
        method: 'GET',
        headers: { ...headers, 'user-agent': userAgent },
        dispatcher,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      signal?.throwIfAborted();
      throw new SourceFetchError(
        ingestFailureReasons.httpError,
        `${target.host} did not answer (${(error as Error).message})`,
        false,
      );
    }
    const location = headerOf(response.headers, 'location');
    if (response.statusCode >= 300 && response.statusCode < 400 && location) {
      discard(response);
      if (hop >= maxRedirects)
        throw new SourceFetchError(ingestFailureReasons.httpError, `more than ${maxRedirects} redirects`, true);
      target = new URL(location, target);
      continue;
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      discard(response);
      throw new SourceFetchError(
        ingestFailureReasons.httpError,
        `the source URL answered ${response.statusCode}`,
        !isTransientStatus(response.statusCode),
      );
    }
    return response;
  }
}

/** Drops a response's body unread (its connection closes; the abort is expected, not an error). */
function discard(response: Dispatcher.ResponseData): void {
  response.body.on('error', () => {});
  response.body.destroy();
}

function tooLarge(size: number, maxBytes: number, how: string): SourceFetchError {
  return new SourceFetchError(
    ingestFailureReasons.tooLarge,
    `the source ${how} ${size} bytes; at most ${maxBytes} bytes (5 GB) are accepted`,
    true,
  );
}

/**
 * Streams `url` into `sink` in parts of `partBytes`. A connection dropped mid-body is resumed with
 * `Range: bytes=<received>-` (and If-Range) up to `maxResumes` times; a server that answers the
 * resume with the whole body (no Range support, or a changed source) restarts the fetch from byte 0:
 * the sink is reset and the stored parts are written again.
 */
export async function fetchSource(options: FetchSourceOptions): Promise<FetchedSource> {
  const { url, sink, maxBytes, partBytes, destination, maxResumes = 5, onProgress, resumeDelayMs, signal } = options;
  let storedParts = options.storedParts ?? 0;
  let storedBytes = storedParts * partBytes;
  let validator = options.validator;
  let buffered: Buffer[] = [];
  let bufferedBytes = 0;
  let resumes = 0;
  let restarted = false;
  let sniffed = storedParts > 0;
  const received = () => storedBytes + bufferedBytes;

  const flush = async (last: boolean) => {
    while (bufferedBytes >= partBytes || (last && bufferedBytes > 0)) {
      const whole = Buffer.concat(buffered, bufferedBytes);
      const part = whole.subarray(0, Math.min(partBytes, whole.length));
      const rest = whole.subarray(part.length);
      await sink.writePart(storedParts + 1, part);
      storedParts += 1;
      storedBytes += part.length;
      buffered = rest.length > 0 ? [Buffer.from(rest)] : [];
      bufferedBytes = rest.length;
      onProgress?.({ storedParts, receivedBytes: received(), ...(validator ? { validator } : {}) });
    }
  };

  for (;;) {
    const from = received();
    const response = await open(
      url,
      destination,
      from > 0 ? { range: `bytes=${from}-`, ...(validator ? { 'if-range': validator } : {}) } : {},
      signal,
    );
    const contentLength = headerOf(response.headers, 'content-length');
    if (response.statusCode === 206) {
      const range = parseContentRange(headerOf(response.headers, 'content-range'));
      if (!range || range.start !== from) {
        discard(response);
        throw new SourceFetchError(
          ingestFailureReasons.httpError,
          `the source answered a Range request for byte ${from} with ${headerOf(response.headers, 'content-range') ?? 'no Content-Range'}`,
          false,
        );
      }
      if (range.total !== undefined && range.total > maxBytes) {
        discard(response);
        throw tooLarge(range.total, maxBytes, 'declares');
      }
    } else {
      if (from > 0) {
        // The whole body again: no Range support, or the source changed (If-Range). Start over.
        await sink.reset();
        storedParts = 0;
        storedBytes = 0;
        buffered = [];
        bufferedBytes = 0;
        sniffed = false;
        restarted = true;
      }
      if (contentLength !== undefined && Number(contentLength) > maxBytes) {
        discard(response);
        throw tooLarge(Number(contentLength), maxBytes, 'declares');
      }
      validator = validatorOf(response.headers);
    }

    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        buffered.push(chunk);
        bufferedBytes += chunk.length;
        if (received() > maxBytes) throw tooLarge(received(), maxBytes, 'sent more than');
        if (!sniffed && bufferedBytes >= CONTAINER_SNIFF_BYTES) {
          const head = Buffer.concat(buffered, bufferedBytes).subarray(0, CONTAINER_SNIFF_BYTES);
          if (!sniffContainer(head)) throw unsupported(true);
          sniffed = true;
        }
        if (bufferedBytes >= partBytes) await flush(false);
      }
    } catch (error) {
      discard(response);
      if (error instanceof SourceFetchError) throw error;
      // Stopped on purpose, not a dropped connection: no resume.
      signal?.throwIfAborted();
      // The connection dropped mid-body: resume from the byte reached.
      if (resumes >= maxResumes) {
        throw new SourceFetchError(
          ingestFailureReasons.httpError,
          `the connection dropped ${resumes + 1} times (last: ${(error as Error).message})`,
          false,
        );
      }
      resumes += 1;
      const delay = resumeDelayMs?.(resumes) ?? 0;
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      continue;
    }
    // A body shorter than the check reads is judged by what it holds.
    if (!sniffed && !sniffContainer(Buffer.concat(buffered, bufferedBytes))) throw unsupported(received() > 0);
    await flush(true);
    return { sizeBytes: received(), parts: storedParts, resumes, restarted };
  }
}

function unsupported(nonEmpty: boolean): SourceFetchError {
  return new SourceFetchError(
    ingestFailureReasons.unsupportedFormat,
    nonEmpty
      ? `the source is not ${ACCEPTED_CONTAINERS_TEXT} (its first bytes open none of these containers)`
      : 'the source is empty',
    true,
  );
}

/** The dispatcher for any address: the dev stack's allowance (WEBHOOK_ALLOW_PRIVATE). */
export function anyAddress(agent: Agent = new Agent()): DestinationCheck {
  return async () => agent;
}
