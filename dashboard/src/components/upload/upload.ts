// Upload from the browser straight to storage (the API's upload URL and multipart routes), with
// progress. Why not `@kino/sdk`'s `uploads.upload`: it sends bodies as streamed fetch requests
// (`duplex: 'half'`), which Chromium allows only over HTTP/2 and QUIC (storage speaks HTTP/1.1
// here), fetch reports no upload progress, and the SDK authenticates with an API key where the
// dashboard has a session. The steps are the SDK's (same routes, same threshold, parts in flight);
// the transport is injected: `XMLHttpRequest` in the page (xhr-put.ts), fakes in the unit tests.
import {
  DEFAULT_MULTIPART_THRESHOLD,
  DEFAULT_PARTS_IN_FLIGHT,
  contentTypeFor,
  type CompletedMultipartUpload,
  type MultipartUpload,
  type PartUrls,
  type UploadContentType,
  type UploadTicket,
} from '@kino/sdk';
import { isUploadContentType } from '@kino/proto/contract';

/** The two ways the upload reaches the outside: the API (session-authenticated) and storage. */
export interface UploadTransport {
  /** An API call relative to `/v1/api`, returning the answer's `body`. */
  api<T>(path: string, init: { method: 'POST' | 'DELETE'; body?: unknown }): Promise<T>;
  /** PUTs `blob` to a presigned URL, telling `onProgress` the bytes sent so far. */
  put(url: string, blob: Blob, options: { contentType?: string; onProgress: (sentBytes: number) => void; signal?: AbortSignal }): Promise<void>;
}

export interface UploadTarget {
  orgId: string;
  envId: string;
}

export interface UploadProgress {
  sentBytes: number;
  totalBytes: number;
  /** 0..1 */
  fraction: number;
  /** `single` (one PUT) or `multipart`. */
  mode: 'single' | 'multipart';
}

export interface BrowserUploadOptions {
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
  /** Files larger than this go up in parts; default the SDK's (64 MiB). */
  multipartThreshold?: number;
  /** Parts sent at once; default the SDK's (4). */
  partsInFlight?: number;
}

/** A file to upload: a browser `File` (a Blob with a name). */
export interface NamedBlob extends Blob {
  readonly name: string;
}

/** The content type storage and the API are told: the file's own when the API accepts it, else from its name. */
export function uploadContentType(file: NamedBlob): UploadContentType {
  return isUploadContentType(file.type) ? file.type : contentTypeFor(file.name);
}

/**
 * Sends `file` to storage and returns the `bucketPath` to process. A file up to the threshold goes
 * in one PUT to an upload URL; a larger one in parts (`partsInFlight` at a time), then the upload is
 * completed. A failed or cancelled multipart upload is aborted so storage drops its parts.
 */
export async function uploadToStorage(
  file: NamedBlob,
  target: UploadTarget,
  transport: UploadTransport,
  options: BrowserUploadOptions = {},
): Promise<{ bucketPath: string; fileSize: number }> {
  const { signal } = options;
  const totalBytes = file.size;
  const contentType = uploadContentType(file);
  const base = `/${encodeURIComponent(target.orgId)}/environments/${encodeURIComponent(target.envId)}`;
  const fileFields = { filename: file.name, fileSize: totalBytes, contentType };
  const report = (mode: UploadProgress['mode'], sentBytes: number) =>
    options.onProgress?.({ sentBytes, totalBytes, fraction: totalBytes === 0 ? 1 : Math.min(1, sentBytes / totalBytes), mode });

  if (totalBytes <= (options.multipartThreshold ?? DEFAULT_MULTIPART_THRESHOLD)) {
    const ticket = await transport.api<UploadTicket>(`${base}/videos/upload-url`, { method: 'POST', body: fileFields });
    report('single', 0);
    await transport.put(ticket.signedURL, file, { contentType, signal, onProgress: (sent) => report('single', sent) });
    report('single', totalBytes);
    return { bucketPath: ticket.bucketPath, fileSize: totalBytes };
  }

  const upload = await transport.api<MultipartUpload>(`${base}/uploads/multipart`, { method: 'POST', body: fileFields });
  const uploadPath = `${base}/uploads/multipart/${encodeURIComponent(upload.uploadId)}`;
  try {
    const sentPerPart = new Map<number, number>();
    const reportParts = () => report('multipart', [...sentPerPart.values()].reduce((sum, sent) => sum + sent, 0));
    const next = { partNumber: 1 };
    const partsInFlight = Math.max(1, options.partsInFlight ?? DEFAULT_PARTS_IN_FLIGHT);
    // The first part that fails stops the others: the upload is aborted below, not left half-sent.
    const stop = new AbortController();
    const partSignal = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    // Each sender takes the next part number, asks for its URL just before sending (URLs last an
    // hour; a large file on a slow link outlives a batch asked for up front) and sends it.
    const sender = async () => {
      while (next.partNumber <= upload.partCount) {
        partSignal.throwIfAborted();
        const partNumber = next.partNumber++;
        const { parts } = await transport.api<PartUrls>(`${uploadPath}/parts`, { method: 'POST', body: { partNumbers: [partNumber] } });
        const url = parts.find((part) => part.partNumber === partNumber)?.signedURL;
        if (!url) throw new Error(`the API gave no URL for part ${partNumber}`);
        const start = (partNumber - 1) * upload.partSize;
        const bytes = file.slice(start, Math.min(totalBytes, start + upload.partSize));
        await transport.put(url, bytes, {
          signal: partSignal,
          onProgress: (sent) => {
            sentPerPart.set(partNumber, sent);
            reportParts();
          },
        });
        sentPerPart.set(partNumber, bytes.size);
        reportParts();
      }
    };
    report('multipart', 0);
    const stopOthersOnFailure = (error: unknown) => {
      stop.abort(error);
      throw error;
    };
    await Promise.all(Array.from({ length: Math.min(partsInFlight, upload.partCount) }, () => sender().catch(stopOthersOnFailure)));
    const completed = await transport.api<CompletedMultipartUpload>(`${uploadPath}/complete`, { method: 'POST' });
    return { bucketPath: completed.bucketPath, fileSize: completed.fileSize };
  } catch (error) {
    await transport.api(uploadPath, { method: 'DELETE' }).catch(() => undefined);
    throw error;
  }
}
