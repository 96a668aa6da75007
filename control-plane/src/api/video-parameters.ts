// The values the spec allows for uploads and processing, their defaults, and the checks a schema
// cannot express. Shared by the route schemas, the handlers and (through index.ts) other parts.
import type { EncodingParameters, VideoQuality } from '../db/schema.ts';
import type { FieldError } from './errors.ts';

export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3; // 5 GB (GiB: the generous reading of "5 GB")
export const UPLOAD_URL_TTL_SECONDS = 3600;
export const UPLOAD_CONTENT_TYPES = ['video/mp4', 'video/quicktime', 'video/x-msvideo', 'video/webm', 'video/x-matroska'] as const;
export const DEFAULT_UPLOAD_CONTENT_TYPE = 'video/mp4';

export const VIDEO_QUALITIES = ['standard', 'high', 'ultra'] as const satisfies readonly VideoQuality[];
export const MAX_EDGE_LENGTHS = [-1, 480, 720, 1080, 1440, 2160] as const;
export const MAX_FRAME_RATE_LIMIT = 240;
export const PIXEL_FORMATS = [
  'yuv420p',
  'yuv422p',
  'yuv444p',
  'yuv420p10b',
  'yuv422p10b',
  'yuv444p10b',
  'yuv420p12b',
  'yuv422p12b',
  'yuv444p12b',
  'autoDetect',
] as const;
export const RATE_CONTROL_MODES = ['constantBitrate', 'variableBitrate'] as const;
export const COMPRESSION_RATIOS = [
  'ultrafast',
  'superfast',
  'veryfast',
  'faster',
  'fast',
  'medium',
  'slower',
  'veryslow',
  'ultraslow',
] as const;
export const AUDIO_CODECS = ['aac', 'mp3', 'ac3', 'eac3', 'aac-he', 'aac-he-v2'] as const;
export const DELETE_REASONS = ['user_request', 'policy_violation', 'copyright_claim', 'expired_content', 'admin_action'] as const;

/** Spec defaults (compressionRatio `veryfast`: the parameter table wins, DESIGN.md). */
export const DEFAULT_ENCODING_PARAMETERS: EncodingParameters = {
  maxEdgeLength: -1,
  maxFrameRate: -1,
  pixelFormat: 'yuv420p',
  rateControlMode: 'variableBitrate',
  twoPassVBREncoding: false,
  compressionRatio: 'veryfast',
  audioCodec: 'aac',
};

export function withDefaultParameters(request: Partial<EncodingParameters>): EncodingParameters {
  return {
    maxEdgeLength: request.maxEdgeLength ?? DEFAULT_ENCODING_PARAMETERS.maxEdgeLength,
    maxFrameRate: request.maxFrameRate ?? DEFAULT_ENCODING_PARAMETERS.maxFrameRate,
    pixelFormat: request.pixelFormat ?? DEFAULT_ENCODING_PARAMETERS.pixelFormat,
    rateControlMode: request.rateControlMode ?? DEFAULT_ENCODING_PARAMETERS.rateControlMode,
    twoPassVBREncoding: request.twoPassVBREncoding ?? DEFAULT_ENCODING_PARAMETERS.twoPassVBREncoding,
    compressionRatio: request.compressionRatio ?? DEFAULT_ENCODING_PARAMETERS.compressionRatio,
    audioCodec: request.audioCodec ?? DEFAULT_ENCODING_PARAMETERS.audioCodec,
  };
}

/** What the schema cannot say: `maxFrameRate` is -1 (auto) or 1..240, never 0 or another negative. */
export function checkEncodingParameters(parameters: EncodingParameters): FieldError[] {
  const errors: FieldError[] = [];
  const { maxFrameRate } = parameters;
  if (maxFrameRate !== -1 && (maxFrameRate < 1 || maxFrameRate > MAX_FRAME_RATE_LIMIT)) {
    errors.push({
      message: `maxFrameRate must be -1 (auto) or between 1 and ${MAX_FRAME_RATE_LIMIT}`,
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
