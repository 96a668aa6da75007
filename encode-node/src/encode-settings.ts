// From a RenditionSpec on the wire (decided by the orchestrator) and the source's facts to the
// ffmpeg settings of one rendition. Anything the node cannot make is an InvalidRequestError.
// The API applied every default once and the orchestrator sent every value: a node fills in
// nothing, so an empty or unknown value is a malformed request, not a request for a default.
// The mapping from the API's values to ffmpeg's is the shared contract's; the orchestrator already
// turned the compression ratio into an x264 preset, so a node only checks that it is one.
import type { RenditionSpec__Output } from '@kino/proto';
import {
  audioCodecs,
  audioEncodingOf,
  dynamicRanges,
  isOneOf,
  pixelFormats,
  rateControlModes,
  videoCodecs,
  x264PixelFormatFor,
  x264PixelFormats,
  x264Presets,
  type HdrDynamicRange,
  type X264PixelFormat,
} from '@kino/proto/contract';
import type { HlsEncodeSettings, MediaInfo } from '@kino/ffmpeg';
import { InvalidRequestError } from './errors.ts';

const maxEdge = 8192;

function evenAtLeastTwo(value: number): number {
  return Math.max(2, Math.floor(value / 2) * 2);
}

export function resolvePixelFormat(requested: string, sourcePixelFormat: string): X264PixelFormat {
  if (isOneOf(pixelFormats, requested)) return x264PixelFormatFor(requested, sourcePixelFormat);
  if (isOneOf(x264PixelFormats, requested)) return requested;
  throw new InvalidRequestError(`unsupported pixel format "${requested}"`);
}

type SourceFacts = Pick<MediaInfo, 'frameRate' | 'pixelFormat' | 'hasAudio' | 'audioChannels'> & {
  /** The probe's (ProbeResult.dynamic_range); empty from a probe made before it was read: SDR. */
  dynamicRange?: string;
  /** Every audio stream (the probe's audio_tracks); absent or empty from orchestrators that send none. */
  audioTracks?: Pick<MediaInfo['audioTracks'][number], 'channels'>[];
} & Partial<Pick<MediaInfo, 'width' | 'height' | 'durationSeconds'>>;

/**
 * A dynamic range on the wire as the HDR it is, undefined for SDR: empty is SDR (a probe, rendition
 * or request from before it was sent); an unknown value is a malformed request.
 */
export function hdrOf(value: string | undefined, what: string): HdrDynamicRange | undefined {
  const range = value || 'sdr';
  if (!isOneOf(dynamicRanges, range)) throw new InvalidRequestError(`unknown dynamic range "${range}" of the ${what}`);
  return range === 'sdr' ? undefined : range;
}

/** A thumbnail's or storyboard's tone map (they are SDR JPEGs): the source's HDR, if it is. */
export function toneMapOf(sourceDynamicRange: string): { toneMapFrom?: HdrDynamicRange } {
  const hdr = hdrOf(sourceDynamicRange, 'source');
  return hdr ? { toneMapFrom: hdr } : {};
}

/**
 * The rendition's picture: an SDR rendition (BT.709) of an HDR source is tone-mapped from it
 * (`toneMapFrom`); an HDR rendition keeps the source's (`hdr`), in 10-bit HEVC only, and only the
 * source's own range (no HDR is made from SDR, nor HLG from PQ).
 */
export function resolveDynamicRange(
  spec: Pick<RenditionSpec__Output, 'dynamicRange' | 'videoCodec'>,
  source: Pick<SourceFacts, 'dynamicRange'>,
  pixelFormat: X264PixelFormat,
): Pick<HlsEncodeSettings, 'toneMapFrom' | 'hdr'> {
  const sourceHdr = hdrOf(source.dynamicRange, 'source');
  const renditionHdr = hdrOf(spec.dynamicRange, 'rendition');
  if (!renditionHdr) return sourceHdr ? { toneMapFrom: sourceHdr } : {};
  if (renditionHdr !== sourceHdr)
    throw new InvalidRequestError(`an ${renditionHdr} rendition of a ${sourceHdr ?? 'sdr'} source`);
  if (spec.videoCodec !== 'hevc' || !pixelFormat.includes('10'))
    throw new InvalidRequestError(`an HDR rendition is 10-bit HEVC, not ${spec.videoCodec || 'h264'} ${pixelFormat}`);
  return { hdr: renditionHdr };
}

/**
 * The audio of a rendition, or of a chunked video's audio track (the ladder's audio settings):
 * undefined when the source has no audio or none is asked for.
 */
export function resolveAudioSettings(
  spec: Pick<RenditionSpec__Output, 'audioCodec' | 'audioBitrateKbps'>,
  source: Pick<SourceFacts, 'hasAudio' | 'audioChannels'>,
): HlsEncodeSettings['audio'] {
  if (!(spec.audioBitrateKbps > 0 && source.hasAudio)) return undefined;
  const codec = spec.audioCodec;
  if (!isOneOf(audioCodecs, codec)) throw new InvalidRequestError(`unsupported audio codec "${spec.audioCodec}"`);
  const encoding = audioEncodingOf[codec];
  const channels = Math.min(Math.max(source.audioChannels, 1) || 2, encoding.maxChannels);
  return { encoding, bitrateKbps: spec.audioBitrateKbps, channels };
}

/** The one rendition of an audio-only source (the orchestrator's plan): no picture, no video bitrate. */
export function isAudioOnlySpec(spec: Pick<RenditionSpec__Output, 'width' | 'height' | 'videoBitrateKbps'>): boolean {
  return spec.width === 0 && spec.height === 0 && spec.videoBitrateKbps === 0;
}

export function resolveHlsSettings(spec: RenditionSpec__Output, source: SourceFacts): HlsEncodeSettings {
  if (spec.pictureCopy) return resolvePictureCopySettings(spec, source);
  if (isAudioOnlySpec(spec)) return resolveAudioOnlySettings(spec, source);
  if (!(spec.width > 0 && spec.height > 0 && spec.width <= maxEdge && spec.height <= maxEdge)) {
    throw new InvalidRequestError(`rendition size ${spec.width}x${spec.height} is out of range (1..${maxEdge})`);
  }
  if (!(spec.videoBitrateKbps > 0 && spec.videoBitrateKbps <= 200_000)) {
    throw new InvalidRequestError(`video bitrate ${spec.videoBitrateKbps} kbps is out of range`);
  }
  const { x264Preset, rateControlMode: rateControl, segmentSeconds } = spec;
  if (!isOneOf(x264Presets, x264Preset)) throw new InvalidRequestError(`unknown x264 preset "${x264Preset}"`);
  if (!isOneOf(rateControlModes, rateControl))
    throw new InvalidRequestError(`unknown rate control mode "${rateControl}"`);
  if (!(segmentSeconds >= 1 && segmentSeconds <= 60)) {
    throw new InvalidRequestError(`segment length ${segmentSeconds} s is out of range`);
  }
  if (spec.frameRate < 0) throw new InvalidRequestError(`frame rate ${spec.frameRate} is negative`);

  // Only ever lower the frame rate, and only by a real margin: re-timing a 29.97 source to "30"
  // would duplicate frames for nothing.
  const capFrameRate = spec.frameRate > 0 && spec.frameRate < source.frameRate - 0.01;
  const frameRate = capFrameRate ? spec.frameRate : source.frameRate;

  const audio = resolveAudioSettings(spec, source);
  const pixelFormat = resolvePixelFormat(spec.pixelFormat, source.pixelFormat);
  // Orchestrators before other codecs sent none: H.264.
  const videoCodec = spec.videoCodec || 'h264';
  if (!isOneOf(videoCodecs, videoCodec)) throw new InvalidRequestError(`unknown video codec "${spec.videoCodec}"`);
  if (!(spec.minQuantizer >= 0 && spec.minQuantizer <= 51))
    throw new InvalidRequestError(`quantizer floor ${spec.minQuantizer} is out of range (0..51)`);
  if (spec.minQuantizer > 0 && videoCodec !== 'h264')
    throw new InvalidRequestError(`a quantizer floor is for H.264 renditions, not ${videoCodec}`);

  return {
    width: evenAtLeastTwo(spec.width),
    height: evenAtLeastTwo(spec.height),
    frameRate,
    capFrameRate,
    pixelFormat,
    ...resolveDynamicRange(spec, source, pixelFormat),
    videoCodec,
    x264Preset,
    videoBitrateKbps: spec.videoBitrateKbps,
    rateControl,
    twoPass: spec.twoPass,
    segmentSeconds,
    audio,
    ...(spec.minQuantizer > 0 ? { minQuantizer: spec.minQuantizer } : {}),
    ...(spec.lowDelay ? { lowDelay: true } : {}),
  };
}

/**
 * An audio-only rendition: the audio settings alone (the video fields are zeros, never read), of
 * the source's audio stream `spec.audioStream` (one of several tracks), with that stream's channels.
 */
function resolveAudioOnlySettings(spec: RenditionSpec__Output, source: SourceFacts): HlsEncodeSettings {
  const stream = spec.audioStream;
  const tracks = source.audioTracks ?? [];
  if (stream > 0 && stream >= tracks.length)
    throw new InvalidRequestError(`audio stream ${stream} was asked for; the source has ${tracks.length}`);
  const audioChannels = stream > 0 ? tracks[stream]!.channels : source.audioChannels;
  const audio = resolveAudioSettings(spec, { ...source, audioChannels });
  if (!audio) throw new InvalidRequestError('an audio-only rendition needs a source with audio and an audio bitrate');
  if (spec.twoPass) throw new InvalidRequestError('an audio-only rendition is not two-pass');
  if (!(spec.segmentSeconds >= 1 && spec.segmentSeconds <= 60)) {
    throw new InvalidRequestError(`segment length ${spec.segmentSeconds} s is out of range`);
  }
  return {
    width: 0,
    height: 0,
    frameRate: 0,
    capFrameRate: false,
    pixelFormat: 'yuv420p',
    videoCodec: 'h264',
    x264Preset: 'veryfast',
    videoBitrateKbps: 0,
    rateControl: 'variableBitrate',
    twoPass: false,
    segmentSeconds: spec.segmentSeconds,
    audio,
    audioOnly: true,
    ...(stream > 0 ? { audioStream: stream } : {}),
    ...audioEndOf(spec, source),
  };
}

/**
 * Where an audio-only rendition's sound ends (padded with silence, or cut: ffmpeg/src/presets.ts):
 * a track added to a ready video at the video's duration (`audioEndSeconds`); one of a pictured
 * source's tracks at the video's end, its longest stream, as the picture and the first track are;
 * an audio-only source's sound is the whole video, nothing to pad it to.
 */
function audioEndOf(
  spec: Pick<RenditionSpec__Output, 'audioEndSeconds'>,
  source: Pick<SourceFacts, 'width' | 'height' | 'durationSeconds'>,
): Pick<HlsEncodeSettings, 'audioPadSeconds'> {
  if (spec.audioEndSeconds > 0) return { audioPadSeconds: spec.audioEndSeconds };
  if (source.width && source.height && source.durationSeconds) return { audioPadSeconds: source.durationSeconds };
  return {};
}

/**
 * A picture rendition copied without its sound (RenditionSpec.picture_copy): the original's
 * settings, read only to check they are a picture's, with no audio, one pass and no hardware.
 */
function resolvePictureCopySettings(spec: RenditionSpec__Output, source: SourceFacts): HlsEncodeSettings {
  if (isAudioOnlySpec(spec)) throw new InvalidRequestError('a picture copy is of a rendition with a picture');
  if (spec.audioBitrateKbps > 0) throw new InvalidRequestError('a picture copy has no sound: audio bitrate 0');
  const settings = resolveHlsSettings({ ...spec, pictureCopy: false, twoPass: false }, source);
  return { ...settings, pictureCopy: true };
}
