// How the dashboard names a video's settings: the one mapping from the API's values (`variableBitrate`,
// `veryfast`, `yuv420p10b`) to the words a person reads, for the upload panel's choices and the video
// page. Records over the contract's types, so a value added there does not compile until named here.
import type {
  AudioCodec,
  CompressionRatio,
  EncodingMode,
  PixelFormat,
  RateControlMode,
  VideoCodec,
  VideoQuality,
} from '@kino/proto/contract';

export const videoCodecLabels: Readonly<Record<VideoCodec, string>> = { h264: 'H.264', hevc: 'HEVC', av1: 'AV1' };

export const encodingModeLabels: Readonly<Record<EncodingMode, string>> = {
  fixed: 'Fixed',
  contentAware: 'Content-aware',
};

export const videoQualityLabels: Readonly<Record<VideoQuality, string>> = {
  standard: 'Standard',
  high: 'High',
  ultra: 'Ultra',
};

export const rateControlLabels: Readonly<Record<RateControlMode, string>> = {
  constantBitrate: 'Constant bitrate',
  variableBitrate: 'Variable bitrate',
};

/** The compression presets, fastest first: what they trade is time for size. */
export const compressionLabels: Readonly<Record<CompressionRatio, string>> = {
  ultrafast: 'Fastest encode, largest files',
  superfast: 'Very fast encode',
  veryfast: 'Fast encode',
  faster: 'Faster than balanced',
  fast: 'Slightly faster than balanced',
  medium: 'Balanced',
  slower: 'Smaller files, slower encode',
  veryslow: 'Much smaller files, slow encode',
  ultraslow: 'Smallest files, slowest encode',
};

export const audioCodecLabels: Readonly<Record<AudioCodec, string>> = {
  aac: 'AAC',
  mp3: 'MP3',
  ac3: 'Dolby Digital (AC-3)',
  eac3: 'Dolby Digital Plus (E-AC-3)',
  'aac-he': 'HE-AAC',
  'aac-he-v2': 'HE-AAC v2',
};

export const pixelFormatLabels: Readonly<Record<PixelFormat, string>> = {
  yuv420p: '8-bit 4:2:0',
  yuv422p: '8-bit 4:2:2',
  yuv444p: '8-bit 4:4:4',
  yuv420p10b: '10-bit 4:2:0',
  yuv422p10b: '10-bit 4:2:2',
  yuv444p10b: '10-bit 4:4:4',
  yuv420p12b: '12-bit 4:2:0',
  yuv422p12b: '12-bit 4:2:2',
  yuv444p12b: '12-bit 4:4:4',
  autoDetect: 'As the source',
};

/**
 * `value`'s label in `labels`, or the value itself: the details type some fields as plain strings (a
 * video processed under an older vocabulary keeps its value), and the raw value beats a blank.
 */
export function labelOf<K extends string>(labels: Readonly<Record<K, string>>, value: string): string {
  return Object.hasOwn(labels, value) ? labels[value as K] : value;
}

/** `maxEdgeLength`: -1 is no limit. */
export function maxEdgeLabel(pixels: number): string {
  return pixels === -1 ? 'No limit (the source’s size)' : `${pixels} px`;
}

/** `maxFrameRate`: -1 keeps the source's. */
export function frameRateLabel(fps: number): string {
  return fps === -1 ? 'As the source' : `${fps} fps`;
}
