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

/** Runs `task` over `items` with at most `limit` in flight; rejects with the first failure. */
export async function forEachLimited<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  });
  await Promise.all(workers);
}
