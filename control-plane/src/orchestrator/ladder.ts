// Plans a video's encoding ladder from its quality preset, its encoding parameters and what the
// probe found. Pure and deterministic: the processVideo workflow calls it directly.
//
// Decisions (issue 3, "plan the ladder"):
// - A rung is the SHORT edge (a portrait 1080x1920 source's top rung is `1080p`, 1080 wide), so
//   rendition keys, storage paths and `shortEdgePixels` agree whatever the orientation.
// - `maxEdgeLength` takes the rung names of the spec (480, 720, 1080, 1440, 2160), so it caps the
//   rung, i.e. the short edge: `maxEdgeLength: 720` keeps 720p and below. -1 means no cap.
// - A rung above the source's short edge is never made (no upscaling). When no rung of the preset
//   fits (a tiny source, or a cap below the preset's lowest rung), the video still gets one rendition
//   at min(source short edge, cap), at the preset's lowest bitrate.
// - Video bitrates are fixed per rung inside each preset's range (spec: standard 500–2500, high
//   1000–5000, ultra 2000–15000 kbps). They are not raised for high frame rates: that would leave
//   the preset's range.
// - Frame rate is the source's, capped by `maxFrameRate` when it is not -1.
// - An audio-only source (no picture, sound; issue 32) gets one rendition of audio alone: the rung
//   of short edge 0, key `0p` (so storage, delivery paths and `encodings` keep the one naming),
//   no size, no frame rate, no video bitrate. Its audio is AAC (hls.js plays AAC in fMP4): the
//   requested `aac`, `aac-he` or `aac-he-v2`, and `aac` in place of mp3, ac3 or eac3.
// Imports only types and the contract (which imports nothing): the workflow sandbox loads this file.

import {
  hlsSegmentSeconds,
  x264PresetOfCompressionRatio,
  type AudioCodec,
  type EncodingParameters,
  type VideoQuality,
  type X264Preset,
} from '@kino/proto/contract';

export interface Rung {
  shortEdge: number;
  videoBitrateKbps: number;
}

export const presetRungs: Record<VideoQuality, readonly Rung[]> = {
  standard: [
    { shortEdge: 360, videoBitrateKbps: 500 },
    { shortEdge: 480, videoBitrateKbps: 1000 },
    { shortEdge: 720, videoBitrateKbps: 2500 },
  ],
  high: [
    { shortEdge: 480, videoBitrateKbps: 1000 },
    { shortEdge: 720, videoBitrateKbps: 2500 },
    { shortEdge: 1080, videoBitrateKbps: 5000 },
  ],
  ultra: [
    { shortEdge: 720, videoBitrateKbps: 2000 },
    { shortEdge: 1080, videoBitrateKbps: 4500 },
    { shortEdge: 1440, videoBitrateKbps: 8000 },
    { shortEdge: 2160, videoBitrateKbps: 15000 },
  ],
};

/** Audio bitrate (kbps) per audio codec of the spec. HE-AAC needs far less than AAC-LC for the same quality. */
export const audioBitrateKbps: Record<AudioCodec, number> = {
  aac: 128,
  'aac-he': 64,
  'aac-he-v2': 48,
  mp3: 128,
  ac3: 192,
  eac3: 192,
};

/** Every rendition's segment length (the contract's): the nodes cut on it, chunks are multiples of it. */
export const segmentSeconds = hlsSegmentSeconds;

export interface LadderSource {
  width: number;
  height: number;
  frameRate: number;
  hasAudio: boolean;
}

/**
 * One rendition, fully decided: what the encode node makes and what `encodings` shows. The encoding
 * parameters it carries as they are keep their types from EncodingParameters (workflows already
 * recorded hold plans of this flat form, so it stays flat).
 */
export interface RenditionPlan extends Pick<EncodingParameters, 'audioCodec' | 'pixelFormat' | 'rateControlMode' | 'compressionRatio'> {
  /** `720p`: the short edge followed by p; also the storage folder name. */
  key: string;
  width: number;
  height: number;
  shortEdgePixels: number;
  shortEdgeIsWidth: boolean;
  videoBitrateKbps: number;
  /** 0 when the source has no audio. */
  audioBitrateKbps: number;
  frameRate: number;
  /** `twoPassVBREncoding`. */
  twoPass: boolean;
  /** What x264 is given: the contract's one mapping of `compressionRatio`. */
  x264Preset: X264Preset;
  segmentSeconds: number;
}

/** Frame rate used when the probe could not tell one (some containers do not say). */
const fallbackFrameRate = 30;

export function planLadder(preset: VideoQuality, source: LadderSource, parameters: EncodingParameters): RenditionPlan[] {
  const rungs = presetRungs[preset];
  if (!rungs) throw new Error(`unknown quality preset ${String(preset)}`);
  if (!(source.width > 0 && source.height > 0)) {
    if (source.hasAudio) return [planAudioOnly(parameters)];
    throw new Error(`source has no picture size (${source.width}x${source.height}) and no audio`);
  }

  const shortEdgeIsWidth = source.width < source.height;
  const sourceShort = Math.min(source.width, source.height);
  const sourceLong = Math.max(source.width, source.height);
  const cap = parameters.maxEdgeLength > 0 ? parameters.maxEdgeLength : Number.POSITIVE_INFINITY;
  const limit = Math.min(sourceShort, cap);

  const fitting = rungs.filter((rung) => rung.shortEdge <= limit);
  // Nothing of the preset fits: one rendition at the largest size allowed, even-sized for 4:2:0.
  const chosen: Rung[] =
    fitting.length > 0 ? fitting : [{ shortEdge: Math.max(2, floorEven(limit)), videoBitrateKbps: rungs[0]!.videoBitrateKbps }];

  const frameRate = planFrameRate(source.frameRate, parameters.maxFrameRate);
  const audioKbps = source.hasAudio ? audioBitrateKbps[parameters.audioCodec] : 0;
  const x264Preset = x264PresetOfCompressionRatio[parameters.compressionRatio];

  return chosen.map((rung) => {
    const shortEdge = rung.shortEdge;
    // Keep the aspect ratio; both edges even (H.264 4:2:0 needs it).
    const longEdge = Math.max(2, roundEven((shortEdge * sourceLong) / sourceShort));
    return {
      key: `${shortEdge}p`,
      width: shortEdgeIsWidth ? shortEdge : longEdge,
      height: shortEdgeIsWidth ? longEdge : shortEdge,
      shortEdgePixels: shortEdge,
      shortEdgeIsWidth,
      videoBitrateKbps: rung.videoBitrateKbps,
      audioBitrateKbps: audioKbps,
      audioCodec: parameters.audioCodec,
      frameRate,
      pixelFormat: parameters.pixelFormat,
      rateControlMode: parameters.rateControlMode,
      twoPass: parameters.twoPassVBREncoding,
      compressionRatio: parameters.compressionRatio,
      x264Preset,
      segmentSeconds,
    };
  });
}

/** Codecs an audio-only rendition keeps as requested; any other is AAC-LC. */
const aacCodecs: ReadonlySet<AudioCodec> = new Set(['aac', 'aac-he', 'aac-he-v2']);

/** The one rendition of an audio-only source (see the decisions above). */
function planAudioOnly(parameters: EncodingParameters): RenditionPlan {
  const audioCodec: AudioCodec = aacCodecs.has(parameters.audioCodec) ? parameters.audioCodec : 'aac';
  return {
    key: '0p',
    width: 0,
    height: 0,
    shortEdgePixels: 0,
    shortEdgeIsWidth: false,
    videoBitrateKbps: 0,
    audioBitrateKbps: audioBitrateKbps[audioCodec],
    audioCodec,
    frameRate: 0,
    pixelFormat: parameters.pixelFormat,
    rateControlMode: parameters.rateControlMode,
    twoPass: false,
    compressionRatio: parameters.compressionRatio,
    x264Preset: x264PresetOfCompressionRatio[parameters.compressionRatio],
    segmentSeconds,
  };
}

/** Whether a plan is an audio-only source's one rendition. */
export function isAudioOnlyPlan(plan: Pick<RenditionPlan, 'width' | 'height' | 'videoBitrateKbps'>): boolean {
  return plan.width === 0 && plan.height === 0 && plan.videoBitrateKbps === 0;
}

export function planFrameRate(sourceFrameRate: number, maxFrameRate: number): number {
  const capped = maxFrameRate > 0;
  if (!(sourceFrameRate > 0)) return capped ? Math.min(maxFrameRate, fallbackFrameRate) : fallbackFrameRate;
  return capped ? Math.min(sourceFrameRate, maxFrameRate) : sourceFrameRate;
}

function roundEven(value: number): number {
  return Math.round(value / 2) * 2;
}

function floorEven(value: number): number {
  return Math.floor(value / 2) * 2;
}
