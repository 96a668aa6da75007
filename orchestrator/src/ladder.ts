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
// - Content-aware (`encodingMode: contentAware`, issue 34): the fixed ladder's rate control with a
//   quantizer floor on every H.264 rung (x264's qpmin 18): hard content gets exactly the fixed
//   encode, easy content stops spending at the floor, so a rung never spends more than its ladder
//   value and usually far less (docs/decisions/quality.md has the figures that chose it).
// - Additional codecs (issue 34): each H.264 rung gets a rendition in each codec asked for, key
//   `720p-av1` or `720p-hevc`, at a share of the rung's bitrate that still looks at least as good
//   (codecBitrateShare), single-pass, on the same keyframe grid, AV1 never faster than SVT-AV1's
//   preset 8 (av1FastestPreset); the H.264 ladder always stays and comes first. The floor is H.264's only.
// - An HDR source (issue 52): the H.264 ladder (and AV1) is SDR, tone-mapped on the node; its HEVC
//   renditions stay HDR in the source's transfer, in Main 10 (`yuv420p10b`), marked with their
//   VIDEO-RANGE in the master: asking for `hevc` is asking for what Apple's HDR ladder is, so it
//   takes no option of its own (docs/decisions/encoding.md#hdr-sources).
// - Several audio tracks (issue 52): each track of the source is an alternate audio rendition of
//   its own (key `0p-a1`, `0p-a2`, ... in the source's order), audio alone as an audio-only
//   source's rendition is (AAC), and the picture renditions carry no sound: Shaka cannot mix sound
//   in the variants with alternate renditions, so the variants are pictures alone and name the
//   audio group. Its LANGUAGE is the track's language tag in BCP 47's form (`eng` becomes `en`),
//   its NAME the track's title, else the language's English name, else `Audio N`; the default is
//   the track the source marks default, else the first. A source with one track is unchanged.
// Imports only types and the contract (which imports nothing): the workflow sandbox loads this file.

import {
  additionalVideoCodecs,
  alternateAudioKey,
  audioEncodingOf,
  hlsSegmentSeconds,
  isAacAudioCodec,
  pictureOnlyKey,
  x264Presets,
  x264PresetOfCompressionRatio,
  type AdditionalVideoCodec,
  type AudioCodec,
  type EncodingParameters,
  type HdrDynamicRange,
  type VideoCodec,
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

/**
 * A codec rendition's bitrate as a share of its H.264 rung's. bench/quality measured AV1 (SVT-AV1 at
 * preset 8, see av1FastestPreset) at 56.5 % fewer bits or more than H.264 `veryfast` for the same
 * VMAF over its corpus, and HEVC (x265 at the ladder's own speed) at 28 % fewer; these shares keep a
 * margin, so the codec rendition looks at least as good as its rung (docs/decisions/quality.md).
 */
export const codecBitrateShare: Readonly<Record<AdditionalVideoCodec, number>> = { av1: 0.6, hevc: 0.75 };

/**
 * The fastest speed an AV1 rendition is encoded at, in x264's names (`medium`: SVT-AV1 preset 8).
 * At the `veryfast` default's preset 11, AV1 saved only 28.8 % of H.264's bits at equal VMAF, at 0.9x
 * its CPU; at preset 8, 56.5 % or more at 1.9x. A slower compressionRatio slows AV1 down with it.
 */
export const av1FastestPreset: X264Preset = 'medium';

/** The quantizer floor of a content-aware H.264 rung (x264's qpmin; docs/decisions/quality.md). */
export const contentAwareMinQuantizer = 18;

/** Every rendition's segment length (the contract's): the nodes cut on it, chunks are multiples of it. */
export const segmentSeconds = hlsSegmentSeconds;

export interface LadderSource {
  width: number;
  height: number;
  frameRate: number;
  hasAudio: boolean;
  /** The probe's (`sdr`, `hdr10`, `hlg`); absent or empty in probes from before it was read: SDR. */
  dynamicRange?: string;
  /** Every audio stream (the probe's); absent in probes recorded before it was reported. */
  audioTracks?: readonly SourceAudioTrack[];
}

/** An audio stream of the source, as the probe reports it. */
export interface SourceAudioTrack {
  language: string;
  title: string;
  isDefault: boolean;
  channels: number;
}

/** The track an alternate audio rendition is made of, and how the master playlist names it. */
export interface AlternateAudioTrack {
  /** The source's audio stream (`0:a:N`). */
  stream: number;
  /** BCP 47 (`en`); empty when the source does not say. */
  language: string;
  name: string;
  isDefault: boolean;
  /** The channels the rendition has: the track's, up to the codec's limit. */
  channels: number;
}

/**
 * One rendition, fully decided: what the encode node makes and what `encodings` shows. The encoding
 * parameters it carries as they are keep their types from EncodingParameters (workflows already
 * recorded hold plans of this flat form, so it stays flat).
 */
export interface RenditionPlan extends Pick<
  EncodingParameters,
  'audioCodec' | 'pixelFormat' | 'rateControlMode' | 'compressionRatio'
> {
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
  /** Absent: h264 (plans recorded before other codecs existed). */
  videoCodec?: VideoCodec;
  /** A content-aware rung's quantizer floor; absent: none. */
  minQuantizer?: number;
  /**
   * An HDR rendition in the source's transfer (HEVC Main 10 of an HDR source); absent: SDR BT.709,
   * tone-mapped when the source is HDR (plans recorded before HDR renditions have none).
   */
  dynamicRange?: HdrDynamicRange;
  /** Set: an alternate audio rendition, one of the source's several audio tracks (audio alone). */
  audioTrack?: AlternateAudioTrack;
  /** Set: the video allows hardware encoders (`hardwareEncoding: allowed`); absent: software only. */
  hardwareEncodingAllowed?: true;
  /**
   * A track added to a ready video: its sound padded or cut to this time (the video's duration),
   * its file's length being no part of the video. Absent: a source's own track, run to the source's.
   */
  audioEndSeconds?: number;
  /**
   * Set: encoded as a low-latency broadcast's rungs are (x264's zerolatency tune), to play among
   * such a recording's segments with its init segment: a frame-accurate clip's ends. Absent: as planned.
   */
  lowDelay?: true;
  /**
   * A picture rendition copied without its sound from the rendition of this plan's key less `-v`
   * (pictureOnlyKey), not encoded (docs/decisions/encoding.md#audio). Absent: encoded.
   */
  pictureCopy?: true;
}

/** Frame rate used when the probe could not tell one (some containers do not say). */
const fallbackFrameRate = 30;

export function planLadder(
  preset: VideoQuality,
  source: LadderSource,
  parameters: EncodingParameters,
): RenditionPlan[] {
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
    fitting.length > 0
      ? fitting
      : [{ shortEdge: Math.max(2, floorEven(limit)), videoBitrateKbps: rungs[0]!.videoBitrateKbps }];

  const frameRate = planFrameRate(source.frameRate, parameters.maxFrameRate);
  const alternateAudio = planAlternateAudio(source.audioTracks ?? [], parameters);
  // With alternate audio renditions, the pictures carry no sound of their own.
  const audioKbps = source.hasAudio && alternateAudio.length === 0 ? audioBitrateKbps[parameters.audioCodec] : 0;
  const x264Preset = x264PresetOfCompressionRatio[parameters.compressionRatio];

  const contentAware = parameters.encodingMode === 'contentAware';
  const h264 = chosen.map((rung): RenditionPlan => {
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
      ...(contentAware ? { minQuantizer: contentAwareMinQuantizer } : {}),
    };
  });
  // In the contract's order, whatever the request's: the same parameters plan the same ladder.
  const codecs = additionalVideoCodecs.filter((codec) => parameters.additionalCodecs?.includes(codec));
  const hdr = sourceHdrOf(source);
  const pictures = [...h264, ...codecs.flatMap((codec) => h264.map((rung) => codecRendition(rung, codec, hdr)))];
  // Each node decides which picture it can make on its hardware (hardwareEncoderFor); plans without it stay as before.
  const allowed = parameters.hardwareEncoding === 'allowed';
  return [
    ...(allowed ? pictures.map((rendition) => ({ ...rendition, hardwareEncodingAllowed: true as const })) : pictures),
    ...alternateAudio,
  ];
}

/** The source's HDR, when it is: what an HEVC rendition keeps. */
export function sourceHdrOf(source: Pick<LadderSource, 'dynamicRange'>): HdrDynamicRange | undefined {
  return source.dynamicRange === 'hdr10' || source.dynamicRange === 'hlg' ? source.dynamicRange : undefined;
}

/** One audio-only rendition per track of a source with several (see the decisions above); none for one track. */
function planAlternateAudio(tracks: readonly SourceAudioTrack[], parameters: EncodingParameters): RenditionPlan[] {
  if (tracks.length < 2) return [];
  const marked = tracks.findIndex((track) => track.isDefault);
  const defaultTrack = marked >= 0 ? marked : 0;
  return tracks.map((track, stream) => {
    const plan = planAudioOnly(parameters);
    const maxChannels = audioEncodingOf[plan.audioCodec].maxChannels;
    return {
      ...plan,
      key: alternateAudioKey(stream),
      audioTrack: {
        stream,
        language: languageTagOf(track.language),
        name: track.title || languageNameOf(track.language) || `Audio ${stream + 1}`,
        isDefault: stream === defaultTrack,
        channels: Math.min(Math.max(track.channels, 1), maxChannels),
      },
    };
  });
}

/** A container's language tag (ISO 639-2 `eng`, or BCP 47) as BCP 47 (`en`); '' for none or `und`. */
export function languageTagOf(tag: string): string {
  try {
    const canonical = Intl.getCanonicalLocales(tag.trim())[0] ?? '';
    return canonical === 'und' ? '' : canonical;
  } catch {
    return '';
  }
}

/** The English name of a language tag (`Spanish`), or '' when it is unknown. */
export function languageNameOf(tag: string): string {
  const language = languageTagOf(tag);
  if (!language) return '';
  const name = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' }).of(language);
  return name ?? '';
}

/** Whether a plan is an alternate audio rendition (one of a source's several tracks). */
export function isAlternateAudioPlan(plan: Pick<RenditionPlan, 'audioTrack'>): boolean {
  return plan.audioTrack !== undefined;
}

/** The rendition of an H.264 rung in another codec (see the decisions above). */
function codecRendition(
  { minQuantizer: _floor, ...rung }: RenditionPlan,
  codec: AdditionalVideoCodec,
  hdr: HdrDynamicRange | undefined,
): RenditionPlan {
  const slower = (a: X264Preset, b: X264Preset) => (x264Presets.indexOf(a) >= x264Presets.indexOf(b) ? a : b);
  return {
    ...rung,
    key: `${rung.key}-${codec}`,
    videoCodec: codec,
    videoBitrateKbps: Math.round(rung.videoBitrateKbps * codecBitrateShare[codec]),
    twoPass: false,
    x264Preset: codec === 'av1' ? slower(rung.x264Preset, av1FastestPreset) : rung.x264Preset,
    // HEVC of an HDR source stays HDR, in Main 10 (HDR in 8 bits bands): Apple's HDR rendition.
    ...(codec === 'hevc' && hdr ? { dynamicRange: hdr, pixelFormat: 'yuv420p10b' as const } : {}),
  };
}

/**
 * The renditions one encode makes from one decode: those of one codec (a codec may need another
 * ffmpeg build on the node) and of one pass count (a node runs both passes of an encode together).
 * In ladder order: a ladder of H.264 alone makes the one group it always made.
 */
export function encodeGroups(ladder: readonly RenditionPlan[]): RenditionPlan[][] {
  const groups = new Map<string, RenditionPlan[]>();
  for (const plan of ladder) {
    const id = `${plan.videoCodec ?? 'h264'}/${plan.twoPass ? 2 : 1}`;
    groups.set(id, [...(groups.get(id) ?? []), plan]);
  }
  return [...groups.values()];
}

/**
 * Whether a video's renditions are scored against its source (VMAF, on a sample of chunks): when it
 * asked for fewer bits per picture (content-aware, or other codecs), whose point is the quality.
 * A fixed H.264 ladder is not measured: it would cost every video an encode's worth of CPU.
 */
export function measuresQuality(parameters: Pick<EncodingParameters, 'encodingMode' | 'additionalCodecs'>): boolean {
  return parameters.encodingMode === 'contentAware' || (parameters.additionalCodecs?.length ?? 0) > 0;
}

/** The one rendition of an audio-only source (see the decisions above). */
function planAudioOnly(parameters: EncodingParameters): RenditionPlan {
  // An AAC codec (the contract's aacAudioCodecs) is kept as requested; any other becomes AAC-LC.
  const audioCodec: AudioCodec = isAacAudioCodec(parameters.audioCodec) ? parameters.audioCodec : 'aac';
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

/**
 * The alternate audio rendition of a track added to a ready video (`key` from audio_tracks): the
 * source tracks' plan, of the added file's first audio stream, padded or cut to the video's duration.
 */
export function planAddedAudio(
  parameters: EncodingParameters,
  key: string,
  track: { language: string; name: string; isDefault: boolean; channels: number },
  videoDurationSeconds: number,
): RenditionPlan {
  const plan = planAudioOnly(parameters);
  const maxChannels = audioEncodingOf[plan.audioCodec].maxChannels;
  return {
    ...plan,
    key,
    audioTrack: { ...track, stream: 0, channels: Math.min(Math.max(track.channels, 1), maxChannels) },
    audioEndSeconds: videoDurationSeconds,
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

/**
 * A video's own sound as its first alternate audio rendition (`0p-a1`), made when a track is added to
 * a video whose sound was muxed in its pictures: the source's first audio stream, as a source's tracks
 * are, padded or cut to the video's duration as the muxed sound was; named as the source names it,
 * and the default (an added track marked default takes it in the master).
 */
export function planSourceSound(
  parameters: EncodingParameters,
  track: SourceAudioTrack,
  videoDurationSeconds: number,
): RenditionPlan {
  const name = track.title || languageNameOf(track.language) || 'Audio 1';
  return planAddedAudio(
    parameters,
    alternateAudioKey(0),
    { language: languageTagOf(track.language), name, isDefault: true, channels: track.channels },
    videoDurationSeconds,
  );
}

/** The copy without sound of a picture rendition as its row records it (pictureOnlyKey, RenditionPlan.pictureCopy). */
export function planPictureCopy(
  parameters: EncodingParameters,
  rendition: Pick<
    RenditionPlan,
    | 'key'
    | 'width'
    | 'height'
    | 'shortEdgePixels'
    | 'shortEdgeIsWidth'
    | 'videoBitrateKbps'
    | 'frameRate'
    | 'pixelFormat'
    | 'rateControlMode'
    | 'compressionRatio'
    | 'videoCodec'
    | 'dynamicRange'
  >,
): RenditionPlan {
  return {
    ...rendition,
    key: pictureOnlyKey(rendition.key),
    audioBitrateKbps: 0,
    audioCodec: parameters.audioCodec,
    twoPass: false,
    x264Preset: x264PresetOfCompressionRatio[rendition.compressionRatio],
    segmentSeconds,
    pictureCopy: true,
  };
}
