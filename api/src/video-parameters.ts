// The values the spec allows for uploads and processing, their defaults, and the checks a schema
// cannot express. Shared by the route schemas, the handlers and (through index.ts) other parts.
import { MAX_UPLOAD_BYTES, defaultEncodingParameters, encodingParameterNames, maxFrameRateLimit, type EncodingParameters } from '@kino/proto/contract';
import type { FieldError } from './errors.ts';

export const UPLOAD_URL_TTL_SECONDS = 3600;

/**
 * Why a source of `size` bytes is not processed, or undefined. Checked on the size storage holds
 * (or a URL ingest receives), not the one a client declared, before any work starts; `limit` is
 * MAX_UPLOAD_BYTES but where a test shrinks it.
 */
export function sourceSizeProblem(size: number, limit = MAX_UPLOAD_BYTES): string | undefined {
  return size > limit ? `the file is ${size} bytes; at most ${limit} bytes (5 GB) are accepted` : undefined;
}

// Multipart uploads: S3's limits on parts, and how long an upload may stay open before the sweep
// aborts it (docs/decisions/uploads.md#multipart-uploads).
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
  const partSize = requestedPartSize ?? Math.max(DEFAULT_PART_BYTES, Math.ceil(fileSize / MAX_PARTS / 1024 ** 2) * 1024 ** 2);
  return { partSize, partCount: Math.max(1, Math.ceil(fileSize / partSize)) };
}

/** The size part `partNumber` (1-based) must have: `partSize`, but the last one holds what is left. */
export function expectedPartSize(fileSize: number, partSize: number, partNumber: number): number {
  return Math.min(partSize, fileSize - (partNumber - 1) * partSize);
}
/**
 * The encoding parameters of a process request (its other fields left out), each one it left out at
 * its default. The only place defaults are applied: the video row keeps the result, the orchestrator
 * plans from it and sends every value on the wire, and a node fills in nothing.
 */
export function withDefaultParameters(request: Partial<EncodingParameters>): EncodingParameters {
  const given = Object.fromEntries(
    encodingParameterNames.filter((name) => request[name] !== undefined).map((name) => [name, request[name]]),
  ) as Partial<EncodingParameters>;
  return { ...defaultEncodingParameters, ...given };
}

/** What the schema cannot say: `maxFrameRate` is -1 (auto) or 1..240, never 0 or another negative. */
export function checkEncodingParameters(parameters: EncodingParameters): FieldError[] {
  const errors: FieldError[] = [];
  const { maxFrameRate } = parameters;
  if (maxFrameRate !== -1 && (maxFrameRate < 1 || maxFrameRate > maxFrameRateLimit)) {
    errors.push({
      message: `maxFrameRate must be -1 (auto) or between 1 and ${maxFrameRateLimit}`,
      location: 'body.maxFrameRate',
      value: maxFrameRate,
    });
  }
  return errors;
}

/**
 * The file name part of an upload's storage key: letters, digits, `.`, `_` and `-` only, so a
 * name can never add path segments or need escaping in a URL. The original name is kept in the database.
 */
export function storageFileName(filename: string): string {
  const cleaned = filename
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(-120);
  return cleaned || 'upload';
}

/** A calendar date (YYYY-MM-DD, already pattern-checked) as the UTC midnight it starts, if it exists. */
export function parseCalendarDate(text: string): Date | undefined {
  const date = new Date(`${text}T00:00:00.000Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text ? undefined : date;
}

export interface PageRequest {
  page: number;
  pageSize: number;
}

export function paginationOf({ page, pageSize }: PageRequest, total: number) {
  const totalPages = Math.ceil(total / pageSize);
  return { total, page, pageSize, totalPages, hasNext: page < totalPages, hasPrevious: page > 1 };
}
