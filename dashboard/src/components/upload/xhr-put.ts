// The browser's side of an upload's PUT to storage: XMLHttpRequest, because it reports upload
// progress (`upload.onprogress`) where fetch reports none.
import type { UploadTransport } from './upload.ts';

export class StorageUploadError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'StorageUploadError';
  }
}

export const xhrPut: UploadTransport['put'] = (url, blob, { contentType, onProgress, signal }) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const request = new XMLHttpRequest();
    request.open('PUT', url);
    if (contentType) request.setRequestHeader('Content-Type', contentType);
    request.upload.onprogress = (event) => onProgress(event.loaded);
    const onAbort = () => request.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal?.removeEventListener('abort', onAbort);
    request.onload = () => {
      settle();
      if (request.status >= 200 && request.status < 300) resolve();
      // 403: the presigned URL expired (they last an hour); the caller starts over with a new one.
      else reject(new StorageUploadError(`storage answered ${request.status} to the upload`, request.status));
    };
    request.onerror = () => {
      settle();
      reject(new StorageUploadError('the upload to storage failed (network error or refused by CORS)', 0));
    };
    request.onabort = () => {
      settle();
      reject((signal?.reason as Error | undefined) ?? new DOMException('upload cancelled', 'AbortError'));
    };
    request.send(blob);
  });
