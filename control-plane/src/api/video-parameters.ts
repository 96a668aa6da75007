// The values the spec allows for uploads and processing, their defaults, and the checks a schema
// cannot express. Shared by the route schemas, the handlers and (through index.ts) other parts.
import { defaultEncodingParameters, maxFrameRateLimit, type EncodingParameters } from '@kino/proto/contract';
import type { FieldError } from './errors.ts';

export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3; // 5 GB (GiB: the generous reading of "5 GB")
export const UPLOAD_URL_TTL_SECONDS = 3600;
export const UPLOAD_CONTENT_TYPES = ['video/mp4', 'video/quicktime', 'video/x-msvideo', 'video/webm', 'video/x-matroska'] as const;
export const DEFAULT_UPLOAD_CONTENT_TYPE = 'video/mp4';

export const DELETE_REASONS = ['user_request', 'policy_violation', 'copyright_claim', 'expired_content', 'admin_action'] as const;

export function withDefaultParameters(request: Partial<EncodingParameters>): EncodingParameters {
  return {
    maxEdgeLength: request.maxEdgeLength ?? defaultEncodingParameters.maxEdgeLength,
    maxFrameRate: request.maxFrameRate ?? defaultEncodingParameters.maxFrameRate,
    pixelFormat: request.pixelFormat ?? defaultEncodingParameters.pixelFormat,
    rateControlMode: request.rateControlMode ?? defaultEncodingParameters.rateControlMode,
    twoPassVBREncoding: request.twoPassVBREncoding ?? defaultEncodingParameters.twoPassVBREncoding,
    compressionRatio: request.compressionRatio ?? defaultEncodingParameters.compressionRatio,
    audioCodec: request.audioCodec ?? defaultEncodingParameters.audioCodec,
  };
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
