// Direct uploads: the application's server mints an upload with its API key (`uploads.createDirectUpload`),
// hands the minted object to a browser, and the browser sends the file straight to storage with
// `uploadFile` (`@kino/sdk/browser`), holding no key. Each PUT is an XMLHttpRequest with a Blob
// (a slice per part): a body every browser sends over HTTP/1.1 (a streamed fetch body needs HTTP/2
// in Chromium and is refused by Firefox and Safari), and the one request that reports upload progress.
import { KinoError, UploadError } from '../errors.ts';
import type { UploadContentType } from '../types.ts';
import { ProgressMeter, type UploadProgress } from './progress.ts';

/** A single signed PUT of the whole file (files up to the multipart threshold). */
export interface DirectSingleUpload {
  kind: 'single';
  /** What the server processes once the browser is done. */
  bucketPath: string;
  fileSize: number;
  /** The Content-Type the URL was signed for: the PUT sends it, storage refuses another. */
  contentType: UploadContentType;
  signedURL: string;
  /** Unix time (seconds) at which the URL expires. */
  expiresAt: number;
}

/** A multipart upload: one signed PUT per part, sent in parallel. */
export interface DirectMultipartUpload {
  kind: 'multipart';
  uploadId: string;
  bucketPath: string;
  fileSize: number;
  contentType: UploadContentType;
  partSize: number;
  partCount: number;
  /** A signed URL for every part, 1..partCount. */
  parts: Array<{ partNumber: number; signedURL: string }>;
  /** Unix time (seconds) at which the part URLs expire. */
  expiresAt: number;
}

/**
 * What the application's server mints for a browser (`uploads.createDirectUpload`) and the browser
 * gives to `uploadFile`: plain JSON, with signed URLs as its only credentials.
 */
export type DirectUpload = DirectSingleUpload | DirectMultipartUpload;

/** Where `uploadFile` remembers the parts storage took, for a later call to skip: `localStorage`'s three calls. */
export type DirectUploadResumeStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export interface UploadFileOptions {
  /** Called as bytes go out, at most every 100 ms, and once at the end. */
  onProgress?: (progress: UploadProgress) => void;
  /** Parts sent at once; default 4. */
  concurrency?: number;
  signal?: AbortSignal;
  /**
   * Remember the parts storage took (in `localStorage` with `true`, or in the store given), keyed by
   * the upload's id and the file's name, size and modification time, so that a call after an abort,
   * a lost link or a reload, with the same minted upload and file, sends only the other parts.
   * Default false. A single PUT has nothing to resume.
   */
  resume?: boolean | DirectUploadResumeStore;
  /** Attempts after the first for a part (or the single PUT) that failed on the network or with a 5xx; default 3. */
  retries?: number;
}

export interface UploadFileResult {
  bucketPath: string;
  /** Bytes of parts found already sent on a resume, not sent again. */
  resumedBytes: number;
}

export const DEFAULT_DIRECT_UPLOAD_CONCURRENCY = 4;
const defaultRetries = 3;
const retryBaseDelayMs = 500;

/** A failure another attempt may mend: no answer, or storage's 5xx, 408 or 429. A 403 (an expired URL) is not. */
function isRetryable(error: unknown): boolean {
  return (
    error instanceof UploadError &&
    (error.status === 0 || error.status >= 500 || error.status === 408 || error.status === 429)
  );
}

/** One PUT of `body` to a signed URL with XMLHttpRequest, telling `onProgress` the bytes sent so far. */
function xhrPut(
  url: string,
  body: Blob,
  contentType: string | undefined,
  signal: AbortSignal,
  onProgress: (bytes: number) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const request = new XMLHttpRequest();
    request.open('PUT', url);
    if (contentType) request.setRequestHeader('Content-Type', contentType);
    request.upload.onprogress = (event) => onProgress(event.loaded);
    const onAbort = () => request.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal.removeEventListener('abort', onAbort);
    request.onload = () => {
      settle();
      if (request.status >= 200 && request.status < 300) resolve();
      else reject(new UploadError(request.status, request.responseText));
    };
    request.onerror = () => {
      settle();
      reject(new UploadError(0, 'no answer from storage (a network error, or the bucket refused this origin by CORS)'));
    };
    request.onabort = () => {
      settle();
      reject((signal.reason as Error | undefined) ?? new DOMException('upload cancelled', 'AbortError'));
    };
    request.send(body);
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** A PUT with up to `retries` more attempts, each after a doubling wait; a retry starts the body again. */
async function putWithRetries(
  url: string,
  body: Blob,
  contentType: string | undefined,
  signal: AbortSignal,
  retries: number,
  onProgress: (bytes: number) => void,
): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      onProgress(0);
      return await xhrPut(url, body, contentType, signal, onProgress);
    } catch (error) {
      if (signal.aborted || !isRetryable(error) || attempt >= retries) throw error;
      await sleep(retryBaseDelayMs * 2 ** attempt, signal);
    }
  }
}

/** The key the parts of `upload` sent from `file` are remembered under. */
function resumeKey(file: Blob, upload: DirectMultipartUpload): string {
  const named = typeof File !== 'undefined' && file instanceof File ? `${file.name}:${file.lastModified}` : '';
  return `kino-upload:${upload.uploadId}:${named}:${file.size}`;
}

function storedParts(store: DirectUploadResumeStore | undefined, key: string): Set<number> {
  try {
    const saved: unknown = JSON.parse(store?.getItem(key) ?? '[]');
    return new Set(Array.isArray(saved) ? saved.filter((n): n is number => Number.isInteger(n)) : []);
  } catch {
    return new Set();
  }
}

/** Resume is a convenience: a store that refuses to write (a full quota, a private window) costs only the resume. */
function remember(store: DirectUploadResumeStore | undefined, key: string, sent: Set<number>): void {
  try {
    store?.setItem(key, JSON.stringify([...sent]));
  } catch {
    // the upload goes on; a later call sends these parts again
  }
}

/**
 * Sends `file` to storage with what the application's server minted for it: one PUT, or the parts
 * `concurrency` at a time, each retried on a network error or a 5xx. The server then completes it
 * and starts processing (`uploads.completeDirectUpload`, `videos.process`). Cancel with `signal`;
 * with `resume`, a later call with the same upload and file skips the parts already sent.
 * @example
 * import { uploadFile } from '@kino/sdk/browser';
 * const upload = await (await fetch('/my-app/uploads', { method: 'POST', body: JSON.stringify({ name: file.name, size: file.size }) })).json();
 * await uploadFile(file, upload, { resume: true, onProgress: ({ bytesSent, totalBytes }) => (bar.value = bytesSent / totalBytes) });
 * await fetch('/my-app/uploads/done', { method: 'POST', body: JSON.stringify(upload) });
 */
export async function uploadFile(
  file: Blob,
  upload: DirectUpload,
  options: UploadFileOptions = {},
): Promise<UploadFileResult> {
  if (file.size !== upload.fileSize) {
    throw new KinoError(
      `the file has ${file.size} bytes and the upload was minted for ${upload.fileSize}: mint one for this file`,
    );
  }
  const signal = options.signal ?? new AbortController().signal;
  const retries = options.retries ?? defaultRetries;
  const meter = new ProgressMeter(file.size, options.onProgress);

  if (upload.kind === 'single') {
    await putWithRetries(upload.signedURL, file, upload.contentType, signal, retries, (bytes) =>
      meter.sending(1, bytes),
    );
    meter.done(1, file.size);
    meter.finish();
    return { bucketPath: upload.bucketPath, resumedBytes: 0 };
  }

  const store = options.resume === true ? globalThis.localStorage : options.resume || undefined;
  const key = resumeKey(file, upload);
  const sent = storedParts(store, key);
  const sizeOf = (partNumber: number) => Math.min(upload.partSize, file.size - (partNumber - 1) * upload.partSize);
  let resumedBytes = 0;
  for (const partNumber of sent) resumedBytes += sizeOf(partNumber);
  meter.alreadySent(resumedBytes);
  const queue = upload.parts.filter((part) => !sent.has(part.partNumber));

  // The first failure stops the others: parts not started are left, those under way cancelled.
  const stop = new AbortController();
  const partSignal = AbortSignal.any([signal, stop.signal]);
  const sender = async () => {
    for (let part = queue.shift(); part && !partSignal.aborted; part = queue.shift()) {
      const { partNumber, signedURL } = part;
      const bytes = file.slice((partNumber - 1) * upload.partSize, partNumber * upload.partSize);
      await putWithRetries(signedURL, bytes, undefined, partSignal, retries, (n) => meter.sending(partNumber, n));
      meter.done(partNumber, bytes.size);
      sent.add(partNumber);
      remember(store, key, sent);
    }
  };
  const senders = Math.max(1, Math.min(options.concurrency ?? DEFAULT_DIRECT_UPLOAD_CONCURRENCY, queue.length));
  const results = await Promise.allSettled(
    Array.from({ length: senders }, () =>
      sender().catch((error: unknown) => {
        stop.abort(error);
        throw error;
      }),
    ),
  );
  signal.throwIfAborted();
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
  if (sent.size < upload.partCount)
    throw new KinoError(`the upload lists ${upload.parts.length} part URLs for ${upload.partCount} parts`);
  store?.removeItem(key);
  meter.finish();
  return { bucketPath: upload.bucketPath, resumedBytes };
}
