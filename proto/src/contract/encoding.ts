// The encoding vocabulary of the API and the one mapping from its values to what ffmpeg is given.
// Declared once here: the API's schemas, the SDK's types, the orchestrator's ladder and the encode
// nodes all read these lists and tables. Every table is a `Record` over an API type, so a value the
// API accepts without an ffmpeg counterpart does not compile.
//
// Where each mapping is applied: the orchestrator turns `compressionRatio` into an x264 preset when
// it plans the ladder (nodes receive x264 preset names on the wire and only check them against
// `x264Presets`); a node turns the pixel format and the audio codec into ffmpeg's when it encodes,
// since `autoDetect` needs the source's pixel format, which only the node reads.
//
// What this ffmpeg can do (Debian 12's 5.1: libx264 with 8- and 10-bit, the native AAC encoder)
// is written down in encode-node/README.md.
import type { Watermark } from './watermarks.ts';

/** Quality presets (spec, "Quality presets"): each has its own bitrate ladder. */
export const videoQualities = ['standard', 'high', 'ultra'] as const;
export type VideoQuality = (typeof videoQualities)[number];

/** `maxEdgeLength`: -1 (no limit) or a rung's short edge. */
export const maxEdgeLengths = [-1, 480, 720, 1080, 1440, 2160] as const;
export type MaxEdgeLength = (typeof maxEdgeLengths)[number];

/** Highest `maxFrameRate` accepted (besides -1, auto). */
export const maxFrameRateLimit = 240;

/** Pixel formats (spec, "Pixel formats"). */
export const pixelFormats = [
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
export type PixelFormat = (typeof pixelFormats)[number];

/**
 * Video codecs of renditions (`encodings[].videoCodec`): the H.264 ladder every video has, and the
 * codecs `additionalCodecs` may add beside it (issue 34).
 */
export const videoCodecs = ['h264', 'hevc', 'av1'] as const;
export type VideoCodec = (typeof videoCodecs)[number];

/**
 * How a rendition's bits are chosen: `fixed` spends the preset's ladder value; `contentAware` spends
 * what the content needs, never more than that value (docs/decisions/quality.md).
 */
export const encodingModes = ['fixed', 'contentAware'] as const;
export type EncodingMode = (typeof encodingModes)[number];

/** Codecs a video may have renditions in beside the H.264 ladder, which always stays. */
export const additionalVideoCodecs = ['hevc', 'av1'] as const;
export type AdditionalVideoCodec = (typeof additionalVideoCodecs)[number];

/**
 * A source's dynamic range, from its transfer characteristics (ffprobe's `color_transfer`): `hdr10`
 * is PQ (SMPTE ST 2084, HDR10 and the base layer of Dolby Vision 8.1), `hlg` is hybrid log-gamma
 * (ARIB STD-B67, the HDR of phones and broadcast, and of Dolby Vision 8.4), anything else `sdr`.
 * Shown in a video's details (`sourceDynamicRange`); an SDR rendition of an HDR source is tone-mapped
 * to BT.709 (docs/decisions/encoding.md, "HDR sources").
 */
export const dynamicRanges = ['sdr', 'hdr10', 'hlg'] as const;
export type DynamicRange = (typeof dynamicRanges)[number];
export type HdrDynamicRange = Exclude<DynamicRange, 'sdr'>;

export const rateControlModes = ['constantBitrate', 'variableBitrate'] as const;
export type RateControlMode = (typeof rateControlModes)[number];

/**
 * The video buffer (VBV) a rate control holds an encode to, in kbps: `variableBitrate` averages at
 * the target with peaks capped at 1.5x over a two-second buffer; `constantBitrate` holds the target
 * over a one-second buffer. The nodes encode with it (@kino/ffmpeg rateControlArgs); a playlist
 * written before the segments exist declares the peak it allows (declaredPeakKbps).
 */
export function videoBufferOf(mode: RateControlMode, kbps: number): { maxrateKbps: number; bufsizeKbps: number } {
  if (mode === 'constantBitrate') return { maxrateKbps: kbps, bufsizeKbps: kbps };
  const maxrateKbps = Math.round(kbps * 1.5);
  return { maxrateKbps, bufsizeKbps: maxrateKbps * 2 };
}

/**
 * The highest bit rate a segment of `segmentSeconds` can reach under videoBufferOf: the maximum
 * rate for its length, plus a full buffer spent at its start (2x the target for a 6 s VBR segment).
 */
export function declaredPeakKbps(mode: RateControlMode, kbps: number, segmentSeconds: number): number {
  const { maxrateKbps, bufsizeKbps } = videoBufferOf(mode, kbps);
  return maxrateKbps + bufsizeKbps / segmentSeconds;
}

/** Compression presets (spec, "Compression presets"), fastest first. */
export const compressionRatios = [
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
export type CompressionRatio = (typeof compressionRatios)[number];

export const audioCodecs = ['aac', 'mp3', 'ac3', 'eac3', 'aac-he', 'aac-he-v2'] as const;
export type AudioCodec = (typeof audioCodecs)[number];

/** The encoding parameters of a process request, after defaults; kept on the video and shown in details. */
export interface EncodingParameters {
  maxEdgeLength: number;
  maxFrameRate: number;
  pixelFormat: PixelFormat;
  rateControlMode: RateControlMode;
  twoPassVBREncoding: boolean;
  compressionRatio: CompressionRatio;
  audioCodec: AudioCodec;
  /** Absent on videos processed before it existed: `fixed`. */
  encodingMode?: EncodingMode;
  /** Absent on videos processed before it existed: none. */
  additionalCodecs?: AdditionalVideoCodec[];
  /**
   * Labels the encode nodes of this video must carry, every one (a customer's own nodes: `acme`;
   * docs/decisions/encoding.md, "Where encodes run"). Absent on videos processed before it existed: none.
   */
  nodeLabels?: string[];
  /**
   * `allowed`: a node with a working hardware encoder of a rendition's codec may use it (its
   * environment's setting, unless the process call gives one); absent or `never`: software only.
   */
  hardwareEncoding?: 'never' | 'allowed';
  /**
   * An image burnt into every picture rendition (watermarks.ts): the process call's, else its
   * environment's default; absent: none.
   */
  watermark?: Watermark;
  /**
   * Caption tracks to make from the video's speech once it is ready (transcripts.ts), each a
   * language (or `auto`: the one detected) and a label; absent: none. Kept with the parameters, as the
   * rest of what the process call asked of the farm.
   */
  generatedSubtitles?: GeneratedSubtitlesRequest[];
}

/** One caption track a process call asks to have made from speech. */
export interface GeneratedSubtitlesRequest {
  /** A BCP 47 tag the farm's speech engines transcribe, or `auto`. */
  language: string;
  label?: string;
}

/**
 * A node label as a node carries it (`NODE_LABELS`) and a video asks for it: a name (`gpu`) or a
 * name with a value (`region=eu`), of letters, digits, `.`, `_` and `-`, as Kubernetes labels are.
 * Nothing else: a label is stored and compared as text, and PostgreSQL refuses some characters
 * (NUL) outright.
 */
const nodeLabelSource = '[A-Za-z0-9][A-Za-z0-9._-]*(?:=[A-Za-z0-9._-]*)?';
export const nodeLabelPattern = `^${nodeLabelSource}$`;
/** `NODE_LABELS`: labels separated by commas (spaces around them allowed). */
export const nodeLabelListPattern = new RegExp(`^\\s*${nodeLabelSource}(?:\\s*,\\s*${nodeLabelSource})*\\s*$`);

/** A label list matching nodeLabelListPattern as the node registers it: `gpu,region=eu` is `{ gpu: '', region: 'eu' }`. */
export function parseNodeLabelList(value: string): Record<string, string> {
  return Object.fromEntries(
    value.split(',').map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? [pair.trim(), ''] : [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
    }),
  );
}

/** Spec defaults (compressionRatio `veryfast`: the parameter table wins over the prose, docs/decisions/uploads.md). */
export const defaultEncodingParameters: Readonly<EncodingParameters> = {
  maxEdgeLength: -1,
  maxFrameRate: -1,
  pixelFormat: 'yuv420p',
  rateControlMode: 'variableBitrate',
  twoPassVBREncoding: false,
  compressionRatio: 'veryfast',
  audioCodec: 'aac',
  encodingMode: 'fixed',
  additionalCodecs: [],
  nodeLabels: [],
  hardwareEncoding: 'never',
};

/** The names of the encoding parameters (the process request's fields that are one), from the defaults above. */
export const encodingParameterNames = Object.keys(defaultEncodingParameters) as readonly (keyof EncodingParameters)[];

// ffmpeg's side.

/** libx264's preset names (`x264 --help`), fastest first: what RenditionSpec.x264_preset carries. */
export const x264Presets = [
  'ultrafast',
  'superfast',
  'veryfast',
  'faster',
  'fast',
  'medium',
  'slow',
  'slower',
  'veryslow',
  'placebo',
] as const;
export type X264Preset = (typeof x264Presets)[number];

/** What libx264 accepts in this build (`ffmpeg -h encoder=libx264`), minus the deprecated full-range yuvj*. */
export const x264PixelFormats = ['yuv420p', 'yuv422p', 'yuv444p', 'yuv420p10le', 'yuv422p10le', 'yuv444p10le'] as const;
export type X264PixelFormat = (typeof x264PixelFormats)[number];

/** How an audio codec of the API is written. */
export interface AudioEncoding {
  /** The format recorded for the rendition (`audioFormat`). */
  format: 'aac' | 'mp3' | 'ac3' | 'eac3';
  /** ffmpeg's encoder (`-c:a`). */
  encoder: string;
  /** Channels written: stereo for AAC and MP3; AC-3/E-AC-3 keep up to 5.1. */
  maxChannels: number;
}

// The mapping, API -> ffmpeg.

/**
 * The x264 preset of each compression ratio. The API names are x264's own except `ultraslow`:
 * x264 has none, and its one slower preset, `placebo`, costs far more time for next to no gain,
 * so `ultraslow` is `veryslow` (docs/decisions/encoding.md).
 */
export const x264PresetOfCompressionRatio: Readonly<Record<CompressionRatio, X264Preset>> = {
  ultrafast: 'ultrafast',
  superfast: 'superfast',
  veryfast: 'veryfast',
  faster: 'faster',
  fast: 'fast',
  medium: 'medium',
  slower: 'slower',
  veryslow: 'veryslow',
  ultraslow: 'veryslow',
};

/**
 * The libx264 pixel format of each explicit pixel format. libx264 here has no 12-bit: a 12-bit
 * request gets the 10-bit format with the same chroma, the closest thing it can make (rejecting
 * would refuse values the spec lists as allowed).
 */
export const x264PixelFormatOf: Readonly<Record<Exclude<PixelFormat, 'autoDetect'>, X264PixelFormat>> = {
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

/** For `autoDetect`: source pixel formats (ffprobe's names) with an exact or nearest libx264 counterpart. */
const x264PixelFormatOfSource: Readonly<Record<string, X264PixelFormat>> = {
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

/**
 * The libx264 pixel format for a pixel format of the API. `autoDetect` keeps the source's format
 * when libx264 can write it (12-bit sources get 10-bit), else falls back to yuv420p (RGB, gray, ...).
 */
export function x264PixelFormatFor(requested: PixelFormat, sourcePixelFormat: string): X264PixelFormat {
  if (requested === 'autoDetect') return x264PixelFormatOfSource[sourcePixelFormat] ?? 'yuv420p';
  return x264PixelFormatOf[requested];
}

/** The API's name of a libx264 pixel format, for reporting what was written (`yuv420p10le` -> `yuv420p10b`). */
export const pixelFormatOfX264: Readonly<Record<X264PixelFormat, PixelFormat>> = {
  yuv420p: 'yuv420p',
  yuv422p: 'yuv422p',
  yuv444p: 'yuv444p',
  yuv420p10le: 'yuv420p10b',
  yuv422p10le: 'yuv422p10b',
  yuv444p10le: 'yuv444p10b',
};

/**
 * How each audio codec is written. This ffmpeg has no libfdk_aac and its native AAC encoder has no
 * HE-AAC profile, so `aac-he` and `aac-he-v2` are written as AAC-LC (at the requested bitrate) and
 * reported as `aac`: every player that plays HE-AAC plays AAC-LC.
 */
export const audioEncodingOf: Readonly<Record<AudioCodec, AudioEncoding>> = {
  aac: { format: 'aac', encoder: 'aac', maxChannels: 2 },
  'aac-he': { format: 'aac', encoder: 'aac', maxChannels: 2 },
  'aac-he-v2': { format: 'aac', encoder: 'aac', maxChannels: 2 },
  mp3: { format: 'mp3', encoder: 'libmp3lame', maxChannels: 2 },
  ac3: { format: 'ac3', encoder: 'ac3', maxChannels: 6 },
  eac3: { format: 'eac3', encoder: 'eac3', maxChannels: 6 },
};

/**
 * The codecs written as AAC (audioEncodingOf): an audio-only rendition keeps them as requested
 * (hls.js plays AAC in fMP4), and `audio.m4a` copies a track in one of them as it is.
 */
export const aacAudioCodecs: readonly AudioCodec[] = audioCodecs.filter(
  (codec) => audioEncodingOf[codec].format === 'aac',
);

/**
 * Whether `codec` is one of aacAudioCodecs. A plain boolean, not a type guard: the AAC subset has no
 * type of its own (it is derived from audioEncodingOf), and `codec is AudioCodec` would narrow an
 * AudioCodec that is not AAC to `never`.
 */
export function isAacAudioCodec(codec: string): boolean {
  return isOneOf(aacAudioCodecs, codec);
}

/** Whether `value` is one of `values`, narrowing it (for values read off the wire or a database). */
export function isOneOf<const T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}
