// Uploads: the single signed PUT, the multipart calls, and `upload`, which picks between them,
// reports progress and resumes an interrupted multipart upload from the parts storage already has.
import pLimit from 'p-limit';
import { defaultUploadContentType, uploadContentTypeByExtension } from '@kino/proto/contract';
import { APIConnectionError, APIError, ConflictError, KinoError, NotFoundError, UploadError } from '../errors.ts';
import type { APIPromise } from '../api-promise.ts';
import type { CallOptions, HttpClient } from '../http.ts';
import type {
  AbortedMultipartUpload,
  CompletedMultipartUpload,
  CreateMultipartUploadParams,
  CreateUploadUrlParams,
  MultipartUpload,
  PartUrls,
  UploadContentType,
  UploadedFile,
  UploadedPart,
  UploadTicket,
} from '../types.ts';
import { ProgressMeter, type UploadProgress } from '../uploads/progress.ts';
import { prepareSource, sha256Hex, type FileAccess, type UploadSource } from '../uploads/sources.ts';
import type { DirectUpload } from '../uploads/direct.ts';

export type { UploadProgress } from '../uploads/progress.ts';
export type { UploadSource, FileAccess, OpenedFile } from '../uploads/sources.ts';

/**
 * Where `upload` keeps the id of a multipart upload under way, keyed by a fingerprint of the source
 * (and the organization, environment, name and type), so that a rerun after a crash or Ctrl-C
 * resumes it. `fileResumeStore(dir)` from `@kino/sdk/node` keeps one file per key; any key-value
 * store with these three calls (localStorage, IndexedDB, a database) works.
 */
export interface UploadResumeStore {
  get(key: string): Promise<unknown | undefined>;
  set(key: string, state: unknown): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface UploadOptions {
  /** Default: the path's base name, a File's name, else `upload.mp4`. */
  filename?: string;
  /** Default: from the file name's extension. */
  contentType?: UploadContentType;
  signal?: AbortSignal;
  /** Called as bytes reach storage, at most every 100 ms, and once at the end. */
  onProgress?: (progress: UploadProgress) => void;
  /** Files larger than this go up in parts; default 64 MiB. */
  multipartThreshold?: number;
  /** Bytes per part, 5 MiB to 5 GiB; default: the service picks (16 MiB, more for files over 156 GiB). */
  partSize?: number;
  /** Parts sent at once; default 4. */
  partsInFlight?: number;
  /** Where an interrupted multipart upload is remembered for a rerun to resume; default none. */
  resumeStore?: UploadResumeStore;
}

/** What a resume store holds for one source. */
interface ResumeState {
  uploadId: string;
  bucketPath: string;
  partSize: number;
  partCount: number;
  fileSize: number;
  expiresAt: number;
}

function isResumeState(value: unknown): value is ResumeState {
  const state = value as Partial<ResumeState> | undefined;
  return (
    typeof state?.uploadId === 'string' &&
    typeof state.bucketPath === 'string' &&
    typeof state.partSize === 'number' &&
    typeof state.partCount === 'number' &&
    typeof state.fileSize === 'number' &&
    typeof state.expiresAt === 'number'
  );
}

export const DEFAULT_MULTIPART_THRESHOLD = 64 * 1024 * 1024;
export const DEFAULT_PARTS_IN_FLIGHT = 4;

/** What `createDirectUpload` takes: the file a browser will send, as `createMultipart` takes it. */
export interface CreateDirectUploadParams extends CreateMultipartUploadParams {
  /** Files larger than this go up in parts; default 64 MiB. */
  multipartThreshold?: number;
}
/** Part URLs the API signs in one call (its limit): a direct upload's are asked for in calls this size. */
const partUrlsPerCall = 100;
/** Part URLs asked for in one call: enough to keep the parts in flight fed, few enough to be fresh when used. */
const partUrlBatch = 16;

/**
 * The upload content type a file name suggests (`video/mp4` when it suggests none).
 * @example
 * contentTypeFor('talk.MOV'); // 'video/quicktime'
 */
export function contentTypeFor(filename: string): UploadContentType {
  const extension = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase() ?? '';
  return uploadContentTypeByExtension[extension] ?? defaultUploadContentType;
}

/**
 * Whether an upload that failed with `error` can never succeed by trying again (so is aborted): the
 * API refused a request. Storage refusing a part (an expired URL, say) is not: a rerun gets new URLs.
 */
function isPermanent(error: unknown): boolean {
  return error instanceof APIError && error.status < 500 && error.status !== 429;
}

export class Uploads {
  private readonly http: HttpClient;
  private readonly files?: FileAccess;
  constructor(http: HttpClient, files?: FileAccess) {
    this.http = http;
    this.files = files;
  }

  private base(orgId: string, envId: string): string {
    return `/${encodeURIComponent(orgId)}/environments/${encodeURIComponent(envId)}`;
  }

  /**
   * Asks for a signed upload URL, valid for one hour. Upload to it with `putFile`, then process
   * the ticket's `bucketPath` with `videos.process`.
   * @example
   * const ticket = await kino.uploads.createUrl(orgId, envId, { filename: 'talk.mp4', fileSize: 48_213_331 });
   */
  createUrl(
    orgId: string,
    envId: string,
    params: CreateUploadUrlParams,
    options: CallOptions = {},
  ): APIPromise<UploadTicket> {
    return this.http.request<UploadTicket>('POST', `${this.base(orgId, envId)}/videos/upload-url`, {
      ...options,
      body: params,
    });
  }

  /**
   * PUTs the file to the ticket's signed URL, straight to storage (no API key is sent). The
   * Content-Type and the size must be the ones the ticket was made for: storage refuses others
   * (UploadError, 403).
   * @example
   * await kino.uploads.putFile(ticket, await readFile('./talk.mp4'), 'video/mp4');
   * await kino.uploads.putFile(ticket, new Blob([bytes]), 'video/mp4', { onProgress: (p) => console.log(p.bytesSent) });
   */
  async putFile(
    ticket: Pick<UploadTicket, 'signedURL'>,
    source: UploadSource,
    contentType: UploadContentType = defaultUploadContentType,
    options: { signal?: AbortSignal; onProgress?: (progress: UploadProgress) => void } = {},
  ): Promise<void> {
    const { blob } = await prepareSource(source, this.files);
    const meter = new ProgressMeter(blob.size, options.onProgress);
    await this.putBytes(ticket.signedURL, blob, { 'Content-Type': contentType }, options.signal, (bytes) =>
      meter.sending(1, bytes),
    );
    meter.done(1, blob.size);
    meter.finish();
  }

  /**
   * Starts a multipart upload, under the same limits as `createUrl`. Abandoned (not completed)
   * within a day, it is aborted by the service. `upload` does all the steps; these calls are for
   * those who send the parts themselves (a browser with presigned URLs from its server, say).
   * @example
   * const upload = await kino.uploads.createMultipart(orgId, envId, { filename: 'film.mov', fileSize: 3_221_225_472 });
   * console.log(upload.uploadId, upload.partCount, upload.partSize);
   */
  createMultipart(
    orgId: string,
    envId: string,
    params: CreateMultipartUploadParams,
    options: CallOptions = {},
  ): APIPromise<MultipartUpload> {
    return this.http.request<MultipartUpload>('POST', `${this.base(orgId, envId)}/uploads/multipart`, {
      ...options,
      body: params,
    });
  }

  /**
   * Presigned URLs for some parts (1-based numbers, at most 100 a call), valid one hour.
   * @example
   * const { parts } = await kino.uploads.partUrls(orgId, envId, upload.uploadId, [1, 2, 3]);
   * await fetch(parts[0].signedURL, { method: 'PUT', body: firstPart });
   */
  partUrls(
    orgId: string,
    envId: string,
    uploadId: string,
    partNumbers: number[],
    options: CallOptions = {},
  ): APIPromise<PartUrls> {
    return this.http.request<PartUrls>(
      'POST',
      `${this.base(orgId, envId)}/uploads/multipart/${encodeURIComponent(uploadId)}/parts`,
      {
        ...options,
        body: { partNumbers },
      },
    );
  }

  /**
   * The parts storage has received so far, by part number (what a resumed upload need not send again).
   * @example
   * const arrived = await kino.uploads.listParts(orgId, envId, uploadId);
   * const missing = allPartNumbers.filter((n) => !arrived.some((part) => part.partNumber === n));
   */
  listParts(orgId: string, envId: string, uploadId: string, options: CallOptions = {}): APIPromise<UploadedPart[]> {
    return this.http
      .request<{ parts: UploadedPart[] }>(
        'GET',
        `${this.base(orgId, envId)}/uploads/multipart/${encodeURIComponent(uploadId)}/parts`,
        options,
      )
      .map((body) => body.parts);
  }

  /**
   * Assembles the parts into the object, once every part has arrived (else `409 upload_incomplete`).
   * Process the returned `bucketPath` with `videos.process`.
   * @example
   * const { bucketPath } = await kino.uploads.completeMultipart(orgId, envId, uploadId);
   * await kino.videos.process(orgId, envId, { storagePath: bucketPath, videoQuality: 'standard', allowPublicAccess: true });
   */
  completeMultipart(
    orgId: string,
    envId: string,
    uploadId: string,
    options: CallOptions = {},
  ): APIPromise<CompletedMultipartUpload> {
    return this.http.request<CompletedMultipartUpload>(
      'POST',
      `${this.base(orgId, envId)}/uploads/multipart/${encodeURIComponent(uploadId)}/complete`,
      options,
    );
  }

  /**
   * Abandons a multipart upload: storage drops the parts it received.
   * @example
   * await kino.uploads.abortMultipart(orgId, envId, uploadId);
   */
  abortMultipart(
    orgId: string,
    envId: string,
    uploadId: string,
    options: CallOptions = {},
  ): APIPromise<AbortedMultipartUpload> {
    return this.http.request<AbortedMultipartUpload>(
      'DELETE',
      `${this.base(orgId, envId)}/uploads/multipart/${encodeURIComponent(uploadId)}`,
      options,
    );
  }

  /**
   * Mints a direct upload for a browser (or any client without the API key): a signed URL for a
   * file up to `multipartThreshold`, else a multipart upload with a signed URL for every part, all
   * valid one hour. Hand the result (plain JSON) to the browser's `uploadFile` from
   * `@kino/sdk/browser`; once it is done, `completeDirectUpload` then `videos.process`.
   * @example
   * // The application's server, with its API key:
   * const upload = await kino.uploads.createDirectUpload(orgId, envId, { filename: 'talk.mp4', fileSize: 48_213_331 });
   * res.json(upload); // to the browser, which runs uploadFile(file, upload)
   */
  async createDirectUpload(
    orgId: string,
    envId: string,
    params: CreateDirectUploadParams,
    options: CallOptions = {},
  ): Promise<DirectUpload> {
    const { multipartThreshold = DEFAULT_MULTIPART_THRESHOLD, ...file } = params;
    const contentType = file.contentType ?? contentTypeFor(file.filename);
    if (file.fileSize <= multipartThreshold) {
      const { partSize: _partSize, ...single } = file;
      const ticket = await this.createUrl(orgId, envId, { ...single, contentType }, options);
      return {
        kind: 'single',
        bucketPath: ticket.bucketPath,
        fileSize: file.fileSize,
        contentType,
        signedURL: ticket.signedURL,
        expiresAt: ticket.expiresAt,
      };
    }
    const created = await this.createMultipart(orgId, envId, { ...file, contentType }, options);
    const numbers = Array.from({ length: created.partCount }, (_, index) => index + 1);
    const batches: number[][] = [];
    for (let start = 0; start < numbers.length; start += partUrlsPerCall)
      batches.push(numbers.slice(start, start + partUrlsPerCall));
    const signed = await Promise.all(
      batches.map((batch) => this.partUrls(orgId, envId, created.uploadId, batch, options)),
    );
    return {
      kind: 'multipart',
      uploadId: created.uploadId,
      bucketPath: created.bucketPath,
      fileSize: file.fileSize,
      contentType,
      partSize: created.partSize,
      partCount: created.partCount,
      parts: signed.flatMap((answer) => answer.parts),
      expiresAt: Math.min(...signed.map((answer) => answer.expiresAt)),
    };
  }

  /**
   * Once the browser's `uploadFile` is done: completes a multipart direct upload (a single one has
   * nothing to complete) and returns the `bucketPath` to process.
   * @example
   * const { bucketPath } = await kino.uploads.completeDirectUpload(orgId, envId, upload);
   * const { videoID } = await kino.videos.process(orgId, envId, { storagePath: bucketPath, videoQuality: 'standard', allowPublicAccess: false });
   */
  async completeDirectUpload(
    orgId: string,
    envId: string,
    upload: Pick<DirectUpload, 'kind' | 'bucketPath'> & { uploadId?: string },
    options: CallOptions = {},
  ): Promise<{ bucketPath: string }> {
    if (upload.kind === 'single') return { bucketPath: upload.bucketPath };
    if (!upload.uploadId) throw new KinoError('a multipart direct upload needs its uploadId to complete');
    const { bucketPath } = await this.completeMultipart(orgId, envId, upload.uploadId, options);
    return { bucketPath };
  }

  /**
   * Uploads a file, ready for `videos.process`: a single signed PUT up to `multipartThreshold`
   * (64 MiB), parts in parallel above it. With a `resumeStore`, a rerun after an interruption (a
   * crash, Ctrl-C, a lost link) asks storage which parts arrived and sends only the others. A
   * failure no retry can mend (a refused request) aborts the multipart upload.
   * @example
   * import { Kino, fileResumeStore } from '@kino/sdk/node';
   * const kino = new Kino();
   * const file = await kino.uploads.upload(orgId, envId, './talk.mov', {
   *   onProgress: ({ bytesSent, totalBytes, bytesPerSecond }) => console.log(bytesSent, totalBytes, bytesPerSecond),
   *   resumeStore: fileResumeStore('.kino/uploads'),
   * });
   * const { videoID } = await kino.videos.process(orgId, envId, {
   *   storagePath: file.bucketPath, videoQuality: 'standard', allowPublicAccess: true,
   * });
   */
  async upload(orgId: string, envId: string, source: UploadSource, options: UploadOptions = {}): Promise<UploadedFile> {
    const { signal, onProgress } = options;
    const prepared = await prepareSource(source, this.files);
    const filename = options.filename ?? prepared.name ?? 'upload.mp4';
    const contentType = options.contentType ?? contentTypeFor(filename);
    const { blob } = prepared;
    const meter = new ProgressMeter(blob.size, onProgress);

    if (blob.size <= (options.multipartThreshold ?? DEFAULT_MULTIPART_THRESHOLD)) {
      const ticket = await this.createUrl(orgId, envId, { filename, fileSize: blob.size, contentType }, { signal });
      await this.putBytes(ticket.signedURL, blob, { 'Content-Type': contentType }, signal, (bytes) =>
        meter.sending(1, bytes),
      );
      meter.done(1, blob.size);
      meter.finish();
      return {
        bucketPath: ticket.bucketPath,
        fileSize: blob.size,
        contentType,
        partCount: 0,
        resumedBytes: 0,
        expiresAt: ticket.expiresAt,
      };
    }

    const store = options.resumeStore;
    const key = store
      ? await sha256Hex(
          JSON.stringify([
            orgId,
            envId,
            filename,
            contentType,
            blob.size,
            options.partSize ?? null,
            await prepared.fingerprint(),
          ]),
        )
      : undefined;
    let upload: ResumeState | undefined;
    let arrived: UploadedPart[] = [];
    if (store && key) {
      const saved = await store.get(key);
      if (isResumeState(saved) && saved.fileSize === blob.size) {
        try {
          arrived = await this.listParts(orgId, envId, saved.uploadId, { signal });
          upload = saved;
        } catch (error) {
          // Completed, aborted or swept since: start again.
          if (!(error instanceof NotFoundError || error instanceof ConflictError)) throw error;
          await store.delete(key);
        }
      }
    }
    if (!upload) {
      const created = await this.createMultipart(
        orgId,
        envId,
        { filename, fileSize: blob.size, contentType, ...(options.partSize ? { partSize: options.partSize } : {}) },
        { signal },
      );
      upload = {
        uploadId: created.uploadId,
        bucketPath: created.bucketPath,
        partSize: created.partSize,
        partCount: created.partCount,
        fileSize: blob.size,
        expiresAt: created.expiresAt,
      };
      if (store && key) await store.set(key, upload);
    }
    const { uploadId, partSize, partCount, expiresAt } = upload;
    const sizeOf = (partNumber: number) => Math.min(partSize, blob.size - (partNumber - 1) * partSize);

    // A part counts as there only whole: a part storage has at another size is sent again.
    const present = new Set(
      arrived.filter((part) => part.size === sizeOf(part.partNumber)).map((part) => part.partNumber),
    );
    let resumedBytes = 0;
    for (const partNumber of present) resumedBytes += sizeOf(partNumber);
    meter.alreadySent(resumedBytes);
    const missing = Array.from({ length: partCount }, (_, index) => index + 1).filter(
      (partNumber) => !present.has(partNumber),
    );

    try {
      const partOf = (partNumber: number) => blob.slice((partNumber - 1) * partSize, partNumber * partSize);
      await this.sendParts(
        orgId,
        envId,
        uploadId,
        missing,
        partOf,
        options.partsInFlight ?? DEFAULT_PARTS_IN_FLIGHT,
        meter,
        signal,
      );
      const completed = await this.completeMultipart(orgId, envId, uploadId, { signal });
      if (store && key) await store.delete(key);
      meter.finish();
      return { bucketPath: completed.bucketPath, fileSize: blob.size, contentType, partCount, resumedBytes, expiresAt };
    } catch (error) {
      // Kept for a rerun unless nothing can resume it: a refused request, or no store to resume from.
      if (isPermanent(error) || !store) {
        await this.abortMultipart(orgId, envId, uploadId).catch(() => undefined);
        if (store && key) await store.delete(key);
      }
      throw error;
    }
  }

  /** PUTs `missing` parts, `inFlight` at a time, asking for their URLs a batch ahead. */
  private async sendParts(
    orgId: string,
    envId: string,
    uploadId: string,
    missing: number[],
    partOf: (partNumber: number) => Blob,
    inFlight: number,
    meter: ProgressMeter,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const urls = new Map<number, Promise<string>>();
    const urlFor = (partNumber: number): Promise<string> => {
      if (!urls.has(partNumber)) {
        const index = missing.indexOf(partNumber);
        const batch = missing.slice(index, index + partUrlBatch).filter((n) => !urls.has(n));
        const answer = this.partUrls(orgId, envId, uploadId, batch, { signal });
        for (const n of batch) {
          const url = answer.then(({ parts }) => {
            const found = parts.find((part) => part.partNumber === n)?.signedURL;
            if (!found) throw new KinoError(`the service gave no URL for part ${n} of upload ${uploadId}`);
            return found;
          });
          // Parts of a failed batch that are never started must not report an unhandled rejection:
          // the part that asked for the batch reports the failure.
          url.catch(() => undefined);
          urls.set(n, url);
        }
      }
      const url = urls.get(partNumber)!;
      urls.delete(partNumber);
      return url;
    };

    // The first failure stops the rest: parts not yet started are skipped, those under way are
    // cancelled, and the failure is what the caller sees.
    const stop = new AbortController();
    const partSignal = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    let failure: unknown;
    const limit = pLimit(Math.max(1, inFlight));
    await Promise.all(
      missing.map((partNumber) =>
        limit(async () => {
          if (partSignal.aborted) return;
          try {
            const part = partOf(partNumber);
            const send = async (url: string) =>
              this.putBytes(url, part, {}, partSignal, (bytes) => meter.sending(partNumber, bytes));
            try {
              await send(await urlFor(partNumber));
            } catch (error) {
              // A URL asked for ahead may have expired on a slow link: once more with a fresh one.
              if (!(error instanceof UploadError && error.status === 403)) throw error;
              const { parts } = await this.partUrls(orgId, envId, uploadId, [partNumber], { signal: partSignal });
              await send(parts[0]!.signedURL);
            }
            meter.done(partNumber, part.size);
          } catch (error) {
            if (failure === undefined) {
              failure = error;
              stop.abort(error);
            }
          }
        }),
      ),
    );
    if (signal?.aborted) throw signal.reason;
    if (failure !== undefined) throw failure;
  }

  /** One PUT to a presigned URL, with retries, timed by progress (see `FetchOptions.upload`). */
  private async putBytes(
    url: string,
    body: Blob,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    onUploadProgress: (bytes: number) => void,
  ): Promise<void> {
    // Sent in chunks with its length (storage needs it; chunked transfer encoding is refused).
    let response: Response;
    try {
      response = await this.http.fetchWithRetries(
        url,
        { method: 'PUT', headers: { ...headers, 'Content-Length': String(body.size) } },
        { signal, upload: body, onUploadProgress },
      );
    } catch (error) {
      if (error instanceof APIConnectionError || signal?.aborted) throw error;
      throw new APIConnectionError(`upload failed: ${(error as Error).message}`, { cause: error });
    }
    const text = await response.text();
    if (!response.ok) throw new UploadError(response.status, text);
  }
}
