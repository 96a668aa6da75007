// What an upload may be: how long its signed URL lives, and how large a source the API processes.
import { MAX_UPLOAD_BYTES } from '@kino/proto/contract';

export const UPLOAD_URL_TTL_SECONDS = 3600;

/**
 * Why a source of `size` bytes is not processed, or undefined. Checked on the size storage holds
 * (or a URL ingest receives), not the one a client declared, before any work starts; `limit` is
 * MAX_UPLOAD_BYTES but where a test shrinks it.
 */
export function sourceSizeProblem(size: number, limit = MAX_UPLOAD_BYTES): string | undefined {
  return size > limit ? `the file is ${size} bytes; at most ${limit} bytes (5 GB) are accepted` : undefined;
}
