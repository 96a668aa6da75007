// From a RenditionSpec on the wire (decided by the orchestrator) and the source's facts to the
// ffmpeg settings of one rendition. Anything the node cannot make is an InvalidRequestError.
import type { RenditionSpec__Output } from '@kino/proto';
import {
  audioEncodingFor,
  isApiPixelFormat,
  x264PixelFormatFor,
  x264PixelFormats,
  x264PresetFor,
  type HlsEncodeSettings,
  type MediaInfo,
  type X264PixelFormat,
} from './ffmpeg/index.ts';
import { InvalidRequestError } from './errors.ts';

const maxEdge = 8192;

function evenAtLeastTwo(value: number): number {
  return Math.max(2, Math.floor(value / 2) * 2);
}

export function resolvePixelFormat(requested: string, sourcePixelFormat: string): X264PixelFormat {
  const name = requested || 'yuv420p';
  if (isApiPixelFormat(name)) return x264PixelFormatFor(name, sourcePixelFormat);
  if ((x264PixelFormats as readonly string[]).includes(name)) return name as X264PixelFormat;
  throw new InvalidRequestError(`unsupported pixel format "${requested}"`);
}

export function resolveHlsSettings(
  spec: RenditionSpec__Output,
  source: Pick<MediaInfo, 'frameRate' | 'pixelFormat' | 'hasAudio' | 'audioChannels'>,
): HlsEncodeSettings {
  if (!(spec.width > 0 && spec.height > 0 && spec.width <= maxEdge && spec.height <= maxEdge)) {
    throw new InvalidRequestError(`rendition size ${spec.width}x${spec.height} is out of range (1..${maxEdge})`);
  }
  if (!(spec.videoBitrateKbps > 0 && spec.videoBitrateKbps <= 200_000)) {
    throw new InvalidRequestError(`video bitrate ${spec.videoBitrateKbps} kbps is out of range`);
  }
  const x264Preset = x264PresetFor(spec.x264Preset || 'veryfast');
  if (!x264Preset) throw new InvalidRequestError(`unknown x264 preset "${spec.x264Preset}"`);
  const rateControl = spec.rateControlMode || 'variableBitrate';
  if (rateControl !== 'constantBitrate' && rateControl !== 'variableBitrate') {
    throw new InvalidRequestError(`unknown rate control mode "${spec.rateControlMode}"`);
  }
  const segmentSeconds = spec.segmentSeconds || 6;
  if (!(segmentSeconds >= 1 && segmentSeconds <= 60)) {
    throw new InvalidRequestError(`segment length ${segmentSeconds} s is out of range`);
  }
  if (spec.frameRate < 0) throw new InvalidRequestError(`frame rate ${spec.frameRate} is negative`);

  // Only ever lower the frame rate, and only by a real margin: re-timing a 29.97 source to "30"
  // would duplicate frames for nothing.
  const capFrameRate = spec.frameRate > 0 && spec.frameRate < source.frameRate - 0.01;
  const frameRate = capFrameRate ? spec.frameRate : source.frameRate;

  let audio: HlsEncodeSettings['audio'];
  if (spec.audioBitrateKbps > 0 && source.hasAudio) {
    const encoding = audioEncodingFor(spec.audioCodec || 'aac');
    if (!encoding) throw new InvalidRequestError(`unsupported audio codec "${spec.audioCodec}"`);
    const channels = Math.min(Math.max(source.audioChannels, 1) || 2, encoding.maxChannels);
    audio = { encoding, bitrateKbps: spec.audioBitrateKbps, channels };
  }

  return {
    width: evenAtLeastTwo(spec.width),
    height: evenAtLeastTwo(spec.height),
    frameRate,
    capFrameRate,
    pixelFormat: resolvePixelFormat(spec.pixelFormat, source.pixelFormat),
    x264Preset,
    videoBitrateKbps: spec.videoBitrateKbps,
    rateControl,
    twoPass: spec.twoPass,
    segmentSeconds,
    audio,
  };
}
