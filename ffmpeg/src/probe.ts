// ffprobe of a source: the facts the ladder is planned from. Parsing is a pure function of
// ffprobe's JSON so odd files (rotated phones, anamorphic DVDs, audio-only) are unit-tested.
import type { DynamicRange } from '@kino/proto/contract';
import { inputArgsFor, runFfprobe } from './command.ts';

export interface MediaInfo {
  durationSeconds: number;
  /**
   * An audio-only source (no video stream, or only cover art): width, height, frame rate and frame
   * count are 0, the video codec and pixel format empty, and videoDurationSeconds is the audio's.
   */
  /** The video stream's own duration when the container gives it (audio can run longer), else durationSeconds. */
  videoDurationSeconds: number;
  /** As displayed: sample aspect ratio and rotation applied. */
  width: number;
  height: number;
  /** The stream's coded size, before rotation and aspect correction. */
  codedWidth: number;
  codedHeight: number;
  rotation: number;
  frameRate: number;
  /** From the container when it says (nb_frames), else duration × frame rate. */
  frameCount: number;
  videoCodec: string;
  pixelFormat: string;
  /** From the video's transfer characteristics (dynamicRangeOf); `sdr` for an audio-only source. */
  dynamicRange: DynamicRange;
  hasAudio: boolean;
  audioCodec: string;
  audioChannels: number;
  audioSampleRate: number;
  /**
   * Every audio stream, in the source's order (track k is ffmpeg's `0:a:k`); the fields above
   * describe the first. A source with several is offered as alternate audio renditions.
   */
  audioTracks: AudioTrackInfo[];
  formatName: string;
  sizeBytes: number;
}

/** One audio stream of a source: its tags as the container gives them ('' when absent). */
export interface AudioTrackInfo {
  /** The language tag as written (ISO 639-2 in MP4 and Matroska: `eng`). */
  language: string;
  title: string;
  /** The container marks it as the track to play by default. */
  isDefault: boolean;
  channels: number;
}

/** The input is not a video we can encode: failing again will not help. */
export class NotAVideoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotAVideoError';
  }
}

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  color_transfer?: string;
  sample_aspect_ratio?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  nb_frames?: string;
  duration?: string;
  channels?: number;
  sample_rate?: string;
  disposition?: { attached_pic?: number; default?: number };
  tags?: Record<string, string>;
  /** Display matrix (rotation), Dolby Vision configuration, mastering display, content light level... */
  side_data_list?: { side_data_type?: string; rotation?: number }[];
}

export interface ProbeJson {
  streams?: ProbeStream[];
  format?: { format_name?: string; duration?: string; size?: string };
}

function parseRatio(value: string | undefined): number {
  if (!value) return 0;
  const [num, den] = value.split(/[/:]/).map(Number);
  if (num === undefined || !Number.isFinite(num)) return 0;
  if (den === undefined) return num;
  return den > 0 && Number.isFinite(den) ? num / den : 0;
}

function positive(value: string | number | undefined): number {
  const parsed = typeof value === 'number' ? value : Number.parseFloat(value ?? '');
  return Number.isFinite(parsed) && parsed > 0 ? parsed : 0;
}

function rotationOf(stream: ProbeStream): number {
  const fromMatrix = stream.side_data_list?.find((d) => typeof d.rotation === 'number')?.rotation;
  const degrees = fromMatrix ?? Number.parseFloat(stream.tags?.rotate ?? '0');
  if (!Number.isFinite(degrees)) return 0;
  return ((Math.round(degrees) % 360) + 360) % 360;
}

/**
 * HDR by the transfer the stream is tagged with: PQ (`smpte2084`) or HLG (`arib-std-b67`). A Dolby
 * Vision profile 8 stream carries one of them in its base layer, which is what ffmpeg decodes (its
 * enhancement metadata is ignored), so it is HDR10 or HLG here; profile 5 (IPTPQc2, no base layer
 * any other player decodes) is not recognised as HDR and is refused by no one: it comes out as SDR.
 */
export function dynamicRangeOf(colorTransfer: string | undefined): DynamicRange {
  if (colorTransfer === 'smpte2084') return 'hdr10';
  if (colorTransfer === 'arib-std-b67') return 'hlg';
  return 'sdr';
}

// Demuxers of single pictures: an uploaded JPEG or PNG "has a video stream" but is not a video.
const imageFormats = /(^|,)(image2|[a-z0-9]+_pipe|apng|webp|gif_pipe)(,|$)/;
const imageCodecs = new Set(['png', 'mjpeg', 'bmp', 'tiff', 'webp', 'jpegls', 'jpeg2000', 'gif']);

export function parseProbeJson(json: ProbeJson, { live = false }: { live?: boolean } = {}): MediaInfo {
  const streams = json.streams ?? [];
  const format = json.format ?? {};
  const formatName = format.format_name ?? '';
  const video = streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  const audioStreams = streams.filter((s) => s.codec_type === 'audio');
  const audio = audioStreams[0];
  if (!video) {
    if (!audio) {
      throw new NotAVideoError(
        streams.length === 0 ? 'the file has no media streams' : 'the file has neither a video nor an audio stream',
      );
    }
    return audioOnly(audioStreams, formatName, positive(format.duration) || positive(audio.duration), format);
  }
  const durationSeconds = positive(format.duration) || positive(video.duration);
  if (imageFormats.test(formatName) || (imageCodecs.has(video.codec_name ?? '') && durationSeconds === 0)) {
    throw new NotAVideoError(`the file is a still image (${video.codec_name ?? formatName}), not a video`);
  }
  const codedWidth = positive(video.width);
  const codedHeight = positive(video.height);
  if (!codedWidth || !codedHeight) throw new NotAVideoError('the video stream has no picture size');
  // A broadcast being published has no duration yet (issue 56): its picture and rate are what count.
  if (durationSeconds === 0 && !live) throw new NotAVideoError('the video has no duration');
  const frameRate = parseRatio(video.avg_frame_rate) || parseRatio(video.r_frame_rate);
  if (frameRate <= 0 || frameRate > 1000) throw new NotAVideoError('the video has no usable frame rate');

  // Display size: stretch by the sample aspect ratio (anamorphic), then swap for a quarter turn.
  const sar = parseRatio(video.sample_aspect_ratio) || 1;
  let width = sar >= 1 ? Math.round(codedWidth * sar) : codedWidth;
  let height = sar < 1 ? Math.round(codedHeight / sar) : codedHeight;
  const rotation = rotationOf(video);
  if (rotation === 90 || rotation === 270) [width, height] = [height, width];

  const frameCount = Math.round(positive(video.nb_frames)) || Math.round(durationSeconds * frameRate);
  return {
    durationSeconds,
    videoDurationSeconds: positive(video.duration) || durationSeconds,
    width,
    height,
    codedWidth,
    codedHeight,
    rotation,
    frameRate,
    frameCount,
    videoCodec: video.codec_name ?? '',
    pixelFormat: video.pix_fmt ?? '',
    dynamicRange: dynamicRangeOf(video.color_transfer),
    hasAudio: audio !== undefined,
    audioCodec: audio?.codec_name ?? '',
    audioChannels: audio?.channels ?? 0,
    audioSampleRate: Math.round(positive(audio?.sample_rate)),
    audioTracks: audioStreams.map(audioTrackOf),
    formatName,
    sizeBytes: Math.round(positive(format.size)),
  };
}

/** A source with sound and no picture (an audio-only video: one AAC rendition, no thumbnail). */
function audioOnly(
  audioStreams: ProbeStream[],
  formatName: string,
  durationSeconds: number,
  format: NonNullable<ProbeJson['format']>,
): MediaInfo {
  if (durationSeconds === 0) throw new NotAVideoError('the audio has no duration');
  const audio = audioStreams[0]!;
  return {
    durationSeconds,
    videoDurationSeconds: durationSeconds,
    width: 0,
    height: 0,
    codedWidth: 0,
    codedHeight: 0,
    rotation: 0,
    frameRate: 0,
    frameCount: 0,
    videoCodec: '',
    pixelFormat: '',
    dynamicRange: 'sdr',
    hasAudio: true,
    audioCodec: audio.codec_name ?? '',
    audioChannels: audio.channels ?? 0,
    audioSampleRate: Math.round(positive(audio.sample_rate)),
    audioTracks: audioStreams.map(audioTrackOf),
    formatName,
    sizeBytes: Math.round(positive(format.size)),
  };
}

function audioTrackOf(stream: ProbeStream): AudioTrackInfo {
  return {
    language: stream.tags?.language ?? '',
    title: stream.tags?.title ?? '',
    isDefault: stream.disposition?.default === 1,
    channels: stream.channels ?? 0,
  };
}

/** Whether a probe describes an audio-only source (no picture). */
export function isAudioOnly(info: Pick<MediaInfo, 'width' | 'height' | 'hasAudio'>): boolean {
  return info.hasAudio && !(info.width > 0 && info.height > 0);
}

/**
 * How far an input's first video frame comes after its start (the earliest stream's first
 * timestamp, from which `-ss` counts): a recording's segment whose sound begins a little before
 * its picture. 0 when either is unknown.
 */
export async function videoLeadSeconds(input: string, options: { signal?: AbortSignal } = {}): Promise<number> {
  const stdout = await runFfprobe(
    [...inputArgsFor(input), '-of', 'json', '-show_entries', 'format=start_time:stream=codec_type,start_time', input],
    options,
  );
  const json = JSON.parse(stdout) as {
    format?: { start_time?: string };
    streams?: { codec_type?: string; start_time?: string }[];
  };
  const start = Number(json.format?.start_time);
  const video = Number(json.streams?.find((stream) => stream.codec_type === 'video')?.start_time);
  return Number.isFinite(start) && Number.isFinite(video) ? Math.max(0, video - start) : 0;
}

/** Probes a file or a (presigned) URL. Throws NotAVideoError for media that is not a usable video. */
export async function probeMedia(
  input: string,
  options: { signal?: AbortSignal; live?: boolean } = {},
): Promise<MediaInfo> {
  const stdout = await runFfprobe(
    [...inputArgsFor(input), '-of', 'json', '-show_format', '-show_streams', input],
    options,
  );
  let json: ProbeJson;
  try {
    json = JSON.parse(stdout) as ProbeJson;
  } catch {
    throw new NotAVideoError('ffprobe could not describe the file');
  }
  return parseProbeJson(json, { live: options.live ?? false });
}
