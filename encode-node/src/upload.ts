// Uploads through presigned PUT URLs: the only way a node writes to storage.
import { readFile } from 'node:fs/promises';
import PQueue from 'p-queue';
import pRetry, { AbortError } from 'p-retry';
import { StorageUnavailableError, UrlRefusedError } from './errors.ts';

const attempts = 3;

/**
 * PUTs one file with the Content-Type its URL was signed for. Network errors and 5xx are retried
 * (twice, after 0.5 s and 1 s); 4xx is final: a refused presigned URL does not heal.
 */
export async function uploadFile(
  path: string,
  url: string,
  contentType: string,
  signal?: AbortSignal,
): Promise<number> {
  const body = await readFile(path);
  const put = async () => {
    const response = await fetch(url, { method: 'PUT', body, headers: { 'content-type': contentType }, signal });
    if (response.ok) {
      await response.body?.cancel();
      return;
    }
    const text = (await response.text()).slice(0, 300);
    if (response.status >= 400 && response.status < 500) {
      throw new AbortError(
        new UrlRefusedError(`storage refused the upload of ${basename(path)}: HTTP ${response.status} ${text}`),
      );
    }
    throw new Error(`HTTP ${response.status} ${text}`);
  };
  try {
    await pRetry(put, { retries: attempts - 1, minTimeout: 500, factor: 2, signal });
  } catch (error) {
    if (signal?.aborted || error instanceof UrlRefusedError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new StorageUnavailableError(`could not upload ${basename(path)} after ${attempts} attempts: ${reason}`);
  }
  return body.length;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * Uploads running beside the encode, at most `limit` at once. The first failure is kept, reported
 * through `onError` (the job aborts ffmpeg) and thrown by `drain()`; uploads queued after it are
 * skipped.
 */
export class UploadQueue {
  private readonly queue: PQueue;
  private failure: { error: unknown } | undefined;
  bytes = 0;

  private readonly onError: (error: unknown) => void;
  constructor(limit: number, onError: (error: unknown) => void = () => {}) {
    this.onError = onError;
    this.queue = new PQueue({ concurrency: limit });
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  add(task: () => Promise<number>): void {
    void this.queue.add(async () => {
      if (this.failure) return;
      try {
        // Not `this.bytes += await task()`: that reads `bytes` before the await, and uploads
        // finishing meanwhile would be lost from the sum.
        const bytes = await task();
        this.bytes += bytes;
      } catch (error) {
        if (!this.failure) {
          this.failure = { error };
          this.onError(error);
        }
      }
    });
  }

  /** Waits for every upload added so far; throws the first failure. */
  async drain(): Promise<void> {
    await this.queue.onIdle();
    if (this.failure) throw this.failure.error;
  }
}
