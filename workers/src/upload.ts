// Uploads through presigned PUT URLs: the only way a node writes to storage.
import { readFile } from 'node:fs/promises';
import { StorageUnavailableError, UrlRefusedError } from './errors.ts';

const attempts = 3;

/**
 * PUTs one file with the Content-Type its URL was signed for. Network errors and 5xx are retried
 * (twice, with a short backoff); 4xx is final: a refused presigned URL does not heal.
 */
export async function uploadFile(path: string, url: string, contentType: string, signal?: AbortSignal): Promise<number> {
  const body = await readFile(path);
  let lastError = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, { method: 'PUT', body, headers: { 'content-type': contentType }, signal });
    } catch (error) {
      if (signal?.aborted) throw error;
      lastError = error instanceof Error ? error.message : String(error);
      await backoff(attempt);
      continue;
    }
    if (response.ok) {
      await response.body?.cancel();
      return body.length;
    }
    const text = (await response.text()).slice(0, 300);
    if (response.status >= 400 && response.status < 500) {
      throw new UrlRefusedError(`storage refused the upload of ${basename(path)}: HTTP ${response.status} ${text}`);
    }
    lastError = `HTTP ${response.status} ${text}`;
    await backoff(attempt);
  }
  throw new StorageUnavailableError(`could not upload ${basename(path)} after ${attempts} attempts: ${lastError}`);
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function backoff(attempt: number): Promise<void> {
  return attempt < attempts ? new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt)) : Promise.resolve();
}

/**
 * Uploads running beside the encode, at most `limit` at once. The first failure is kept, reported
 * through `onError` (the job aborts ffmpeg) and thrown by `drain()`.
 */
export class UploadQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly pending = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;
  bytes = 0;

  constructor(
    private readonly limit: number,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  get failed(): boolean {
    return this.failure !== undefined;
  }

  add(task: () => Promise<number>): void {
    const run = (async () => {
      if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
      this.running++;
      try {
        if (!this.failure) this.bytes += await task();
      } catch (error) {
        if (!this.failure) {
          this.failure = { error };
          this.onError(error);
        }
      } finally {
        this.running--;
        this.waiting.shift()?.();
      }
    })();
    this.pending.add(run);
    void run.finally(() => this.pending.delete(run));
  }

  /** Waits for every upload added so far; throws the first failure. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
    if (this.failure) throw this.failure.error;
  }
}
