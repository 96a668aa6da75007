// Multipart uploads: S3's limits on parts, how a file is cut into parts, and how long an upload may
// stay open before the sweep aborts it (docs/decisions/uploads.md#multipart-uploads).

export const MIN_PART_BYTES = 5 * 1024 ** 2;
export const MAX_PART_BYTES = 5 * 1024 ** 3;
export const MAX_PARTS = 10_000;
/** Parts small enough to resend cheaply after a failure, large enough that few requests are needed. */
export const DEFAULT_PART_BYTES = 16 * 1024 ** 2;
export const MULTIPART_UPLOAD_TTL_SECONDS = 24 * 3600;
/** Part numbers one call may ask URLs for. */
export const MAX_PART_URLS_PER_CALL = 100;

/** The part size for a file: the one asked for, or the default grown (by whole MiB) to stay within MAX_PARTS. */
export function partLayout(fileSize: number, requestedPartSize?: number): { partSize: number; partCount: number } {
  const partSize =
    requestedPartSize ?? Math.max(DEFAULT_PART_BYTES, Math.ceil(fileSize / MAX_PARTS / 1024 ** 2) * 1024 ** 2);
  return { partSize, partCount: Math.max(1, Math.ceil(fileSize / partSize)) };
}

/** The size part `partNumber` (1-based) must have: `partSize`, but the last one holds what is left. */
export function expectedPartSize(fileSize: number, partSize: number, partNumber: number): number {
  return Math.min(partSize, fileSize - (partNumber - 1) * partSize);
}
