// The spec's encoding parameters, mapped onto what this ffmpeg (Debian 12's 5.1, libx264 with 8- and
// 10-bit, native AAC encoder) can actually do. Every decision here is listed in workers/README.md.

/** Pixel formats of the API (spec, "Pixel formats"). */
export const apiPixelFormats = [
  'yuv420p', 'yuv422p', 'yuv444p',
  'yuv420p10b', 'yuv422p10b', 'yuv444p10b',
  'yuv420p12b', 'yuv422p12b', 'yuv444p12b',
  'autoDetect',
] as const;
export type ApiPixelFormat = (typeof apiPixelFormats)[number];

/** What libx264 accepts in this build (`ffmpeg -h encoder=libx264`), minus the deprecated full-range yuvj*. */
export const x264PixelFormats = ['yuv420p', 'yuv422p', 'yuv444p', 'yuv420p10le', 'yuv422p10le', 'yuv444p10le'] as const;
export type X264PixelFormat = (typeof x264PixelFormats)[number];

// libx264 here has no 12-bit: a 12-bit request gets the 10-bit format with the same chroma, the
// closest thing it can make (rejecting would refuse values the spec lists as allowed).
const apiToX264: Record<Exclude<ApiPixelFormat, 'autoDetect'>, X264PixelFormat> = {
  yuv420p: 'yuv420p',
  yuv422p: 'yuv422p',
  yuv444p: 'yuv444p',
  yuv420p10b: 'yuv420p10le',
  yuv422p10b: 'yuv422p10le',
  yuv444p10b: 'yuv444p10le',
  yuv420p12b: 'yuv420p10le',
  yuv422p12b: 'yuv422p10le',
  yuv444p12b: 'yuv444p10le',
};

// Source formats that have an exact or nearest libx264 counterpart, for `autoDetect`.
const sourceToX264: Record<string, X264PixelFormat> = {
  yuv420p: 'yuv420p',
  yuvj420p: 'yuv420p',
  nv12: 'yuv420p',
  nv21: 'yuv420p',
  yuv422p: 'yuv422p',
  yuvj422p: 'yuv422p',
  nv16: 'yuv422p',
  yuv444p: 'yuv444p',
  yuvj444p: 'yuv444p',
  yuv420p10le: 'yuv420p10le',
  yuv420p10be: 'yuv420p10le',
  p010le: 'yuv420p10le',
  yuv422p10le: 'yuv422p10le',
  yuv422p10be: 'yuv422p10le',
  yuv444p10le: 'yuv444p10le',
  yuv444p10be: 'yuv444p10le',
  yuv420p12le: 'yuv420p10le',
  yuv420p12be: 'yuv420p10le',
  yuv422p12le: 'yuv422p10le',
  yuv422p12be: 'yuv422p10le',
  yuv444p12le: 'yuv444p10le',
  yuv444p12be: 'yuv444p10le',
};

export function isApiPixelFormat(value: string): value is ApiPixelFormat {
  return (apiPixelFormats as readonly string[]).includes(value);
}

/**
 * The libx264 pixel format for an API pixel format. `autoDetect` keeps the source's format when
 * libx264 can write it (12-bit sources get 10-bit), else falls back to yuv420p (RGB, gray, ...).
 */
export function x264PixelFormatFor(requested: ApiPixelFormat, sourcePixelFormat: string): X264PixelFormat {
  if (requested === 'autoDetect') return sourceToX264[sourcePixelFormat] ?? 'yuv420p';
  return apiToX264[requested];
}

/** The API name of a libx264 pixel format, for reporting what was written (`yuv420p10le` → `yuv420p10b`). */
export function apiNameOfPixelFormat(format: X264PixelFormat): ApiPixelFormat {
  return format.endsWith('10le') ? (format.replace('10le', '10b') as ApiPixelFormat) : (format as ApiPixelFormat);
}

/** Compression presets of the API, fastest first (spec, "Compression presets"). */
export const compressionRatios = [
  'ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium', 'slower', 'veryslow', 'ultraslow',
] as const;
export type CompressionRatio = (typeof compressionRatios)[number];

export const x264Presets = [
  'ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium', 'slow', 'slower', 'veryslow', 'placebo',
] as const;
export type X264Preset = (typeof x264Presets)[number];

/**
 * The x264 preset for a compression ratio (or an x264 preset name, passed through). The API names
 * are x264's own except `ultraslow`, the one slower than `veryslow`: that is x264's `placebo`.
 */
export function x264PresetFor(compressionRatio: string): X264Preset | undefined {
  if (compressionRatio === 'ultraslow') return 'placebo';
  return (x264Presets as readonly string[]).includes(compressionRatio) ? (compressionRatio as X264Preset) : undefined;
}

/** Audio codecs of the API. */
export const apiAudioCodecs = ['aac', 'aac-he', 'aac-he-v2', 'mp3', 'ac3', 'eac3'] as const;
export type ApiAudioCodec = (typeof apiAudioCodecs)[number];

/** What actually gets written, and how. */
export interface AudioEncoding {
  /** The format recorded for the rendition (`audioFormat`). */
  format: 'aac' | 'mp3' | 'ac3' | 'eac3';
  encoder: string;
  /** Channels written: stereo for AAC and MP3; AC-3/E-AC-3 keep up to 5.1. */
  maxChannels: number;
}

/**
 * The encoder for an API audio codec. This ffmpeg has no libfdk_aac and its native AAC encoder has
 * no HE-AAC profile, so `aac-he` and `aac-he-v2` are written as AAC-LC (at the requested bitrate) and
 * reported as `aac`: every player that plays HE-AAC plays AAC-LC.
 */
export function audioEncodingFor(codec: string): AudioEncoding | undefined {
  switch (codec) {
    case 'aac':
    case 'aac-he':
    case 'aac-he-v2':
      return { format: 'aac', encoder: 'aac', maxChannels: 2 };
    case 'mp3':
      return { format: 'mp3', encoder: 'libmp3lame', maxChannels: 2 };
    case 'ac3':
      return { format: 'ac3', encoder: 'ac3', maxChannels: 6 };
    case 'eac3':
      return { format: 'eac3', encoder: 'eac3', maxChannels: 6 };
    default:
      return undefined;
  }
}
