// ffmpeg argument lists as plain functions of their options: no I/O, no configuration, so each
// decision (GOP, rate control, HLS muxing) is visible and unit-tested.
import {
  encodedPictureSeconds,
  hlsInitName,
  hlsMinimumLastSegmentSeconds,
  keyframesEndSeconds,
  hlsPlaylistName,
  hlsLivePartPattern,
  hlsSegmentPattern,
  hlsBootstrapPattern,
  hlsBootstrapSeconds,
  videoBufferOf,
  x264Presets,
  type AudioEncoding,
  hardwareEncoderCodecs,
  hardwareVideoEncoders,
  type HardwareVideoEncoder,
  type HdrDynamicRange,
  type VideoCodec,
  type X264PixelFormat,
  type X264Preset,
  type Watermark,
} from '@kino/proto/contract';
import { inputArgsFor } from './command.ts';
import { encoderDeviceArgs, encoderUploadFilter } from './encoders.ts';

/** Everything one rendition's encode needs, fully decided (see encode-settings.ts). */
export interface HlsEncodeSettings {
  /** Output size; both even (H.264 4:2:0 needs it). */
  width: number;
  height: number;
  /** Output frame rate; with `capFrameRate` an fps filter brings the source down to it. */
  frameRate: number;
  capFrameRate: boolean;
  pixelFormat: X264PixelFormat;
  /**
   * Set: the source is HDR in this dynamic range and the rendition is SDR, so its picture is
   * tone-mapped to BT.709 (toneMapFilter) and tagged so; absent: the source's code values, untouched.
   */
  toneMapFrom?: HdrDynamicRange;
  /**
   * Set: an HDR rendition in this range (10-bit HEVC), its picture the source's, tagged BT.2020 with
   * the range's transfer; never with `toneMapFrom`.
   */
  hdr?: HdrDynamicRange;
  /** h264: libx264; hevc: libx265; av1: libsvtav1, which only the quality ffmpeg (quality.ts) runs. */
  videoCodec: VideoCodec;
  /**
   * Set: the rendition is encoded with this working hardware encoder of the node instead of the
   * codec's software one (hardwareEncoderFor decides; hardwareVideoEncoderArgs maps the settings).
   */
  hardwareEncoder?: HardwareVideoEncoder;
  /** The speed of the encoder, in x264's names (x265 takes the same; SVT-AV1's are mapped). */
  x264Preset: X264Preset;
  /** The rendition's bitrate: the average (fixed), or the cap of a constant-quality encode. */
  videoBitrateKbps: number;
  rateControl: 'constantBitrate' | 'variableBitrate';
  /**
   * Set: a constant-quality encode at this CRF (each codec's own scale), its peaks capped at
   * `videoBitrateKbps` (capped CRF, the content-aware ladder's method): easy content spends fewer
   * bits than the ladder's, hard content no more. `rateControl` and `twoPass` are not read.
   */
  constantQuality?: number;
  /**
   * Set: the fixed ladder's rate control with a floor under the quantizer (x264's and x265's
   * `qpmin`): hard content gets exactly the fixed encode, easy content stops spending bits once
   * it reaches this quantizer. Not read with `constantQuality`.
   */
  minQuantizer?: number;
  twoPass: boolean;
  segmentSeconds: number;
  /** Absent: the output has no audio track. */
  audio?: { encoding: AudioEncoding; bitrateKbps: number; channels: number };
  /**
   * The one rendition of an audio-only source: `audio` alone, no video (the video fields are not
   * read). Never two-pass, never chunked.
   */
  audioOnly?: boolean;
  /**
   * An audio-only rendition's source stream among the audio streams (`0:a:N`): one of a source's
   * several tracks, each its own alternate audio rendition. Absent: the first.
   */
  audioStream?: number;
  /**
   * An alternate audio rendition lasts as long as the video: a shorter track is padded with silence
   * to this many seconds, the video's duration, as the first track is (audioArgs; a track that ended
   * early would fail the encode's coverage check, and a player stalls where the sound ends before the
   * picture). Absent: as the track is.
   */
  audioPadSeconds?: number;
  /** Set: the image laid over the picture at this rung's share of it (videoFilterGraph). */
  watermark?: WatermarkOverlay;
  /**
   * The input is an HLS rendition of the video (its playlist) and its picture is copied, not
   * encoded, into the same HLS muxer without its sound (pictureCopyArgs): the video fields say what
   * the original is and are not read. Never two-pass, never chunked.
   */
  pictureCopy?: boolean;
  /**
   * Encoded low-delay (liveLowDelayArgs): a low-latency broadcast's rungs (hlsLadderArgs sets it
   * when it writes parts), and what is encoded again to play among such a recording's segments, with
   * its init segment (a frame-accurate clip's ends).
   */
  lowDelay?: boolean;
}

/**
 * One chunk of a longer video (docs/architecture.md#chunked-encoding): the source from `startSeconds`
 * for `durationSeconds`, written with the video's own timestamps and segment numbers, so the chunks'
 * segments join into one playlist as they are. Its audio is stream-copied from `audioInput`, the
 * video's audio track encoded once: AAC packets do not line up with 6 s boundaries, and encoding
 * each chunk's audio on its own would put encoder priming (a click) at every join.
 */
export interface ChunkWindow {
  startSeconds: number;
  durationSeconds: number;
  firstSegment: number;
  /**
   * The window starts inside the video's first segment: it is written in 2 s pieces
   * (hlsBootstrapName's names, numbered from the window's start), not as 6 s segments. Those inside
   * the first segment are its bootstrap segments; the node joins the later ones by threes into 6 s
   * segments (encode-node's bootstrap-pieces.ts).
   */
  bootstrap?: boolean;
  /**
   * The video's audio on the video's timeline (the audio track, an encodeAudioTrack output, or the
   * window's own audio: audioTrackArgs with a start). Absent: the source's audio is encoded with
   * the picture, as a whole encode does.
   */
  audioInput?: string;
  /**
   * The input starts this far into the video (a broadcast's recording read a segment at a time: a
   * frame-accurate clip of it): `startSeconds` is the window's start in the input, and the output is
   * timed from `startSeconds + inputOffsetSeconds`, on the video's timeline. Absent: 0.
   */
  inputOffsetSeconds?: number;
}

/**
 * The inputs of an encode: the source, and for a chunk the audio track, each seeked to the chunk's
 * start. Input seeking re-encodes from the exact frame; for the stream-copied audio it lands on the
 * packet that contains the start, which the output's `-ss 0` (see chunkOutputArgs) drops again, so
 * each audio packet goes to exactly one chunk.
 */
function inputsFor(input: string, chunk: ChunkWindow | undefined, withAudioTrack: boolean): string[] {
  const seek = chunk && chunk.startSeconds > 0 ? ['-ss', formatNumber(chunk.startSeconds)] : [];
  const args = [...inputArgsFor(input), ...seek, '-i', input];
  if (chunk?.audioInput && withAudioTrack)
    args.push(...inputArgsFor(chunk.audioInput), ...seek, '-i', chunk.audioInput);
  return args;
}

/** The audio stream an output maps: the source's, or the chunk's audio track (input 1). */
function audioMap(chunk: ChunkWindow | undefined): string {
  return chunk?.audioInput ? '1:a:0' : '0:a:0';
}

/** A chunk output's window: from the seek point (nothing before it), its duration, the video's timestamps. */
function chunkOutputArgs(chunk: ChunkWindow | undefined): string[] {
  if (!chunk) return [];
  return [
    ...(chunk.startSeconds > 0 ? ['-ss', '0'] : []),
    '-t',
    formatNumber(chunk.durationSeconds),
    '-output_ts_offset',
    formatNumber(chunk.startSeconds + (chunk.inputOffsetSeconds ?? 0)),
  ];
}

/** Where an encode's output ends, from its start: the whole video, or what is left of it in a chunk's window. */
export function encodeEndSeconds(
  videoSeconds: number,
  chunk: Pick<ChunkWindow, 'startSeconds' | 'durationSeconds'> | undefined,
): number {
  return chunk ? Math.min(chunk.durationSeconds, Math.max(0, videoSeconds - chunk.startSeconds)) : videoSeconds;
}

/**
 * A chunk copies the already encoded audio track (padded when it was encoded); a whole-file encode
 * encodes the source's audio, padded to the output's end (audioArgs).
 */
function audioOutputArgs(
  audio: NonNullable<HlsEncodeSettings['audio']>,
  chunk: ChunkWindow | undefined,
  endSeconds: number | undefined,
): string[] {
  return chunk?.audioInput ? ['-c:a', 'copy'] : audioArgs(audio, endSeconds);
}

/**
 * Where an output's streams end, from its start (a chunk's window cut from the video's): the sound is
 * padded with silence to the video's duration (the probe's, its longer stream's); the picture is
 * held on its last frame to it when the sound runs on past it (encodedPictureSeconds); the keyframe
 * grid stops by the picture's end. Nothing is padded to an unknown duration: a stream's own length
 * is not its end on the timeline when the streams start apart (MPEG-TS), and the pads trim on it.
 */
export function outputEnds(
  videoSeconds: number | undefined,
  durationSeconds: number | undefined,
  chunk: Pick<ChunkWindow, 'startSeconds' | 'durationSeconds'> | undefined,
): { keyframesEnd?: number; soundPadTo?: number; picturePadTo?: number } {
  const picture =
    videoSeconds !== undefined && durationSeconds !== undefined
      ? encodedPictureSeconds({ durationSeconds, videoSeconds })
      : videoSeconds;
  return {
    ...(picture !== undefined ? { keyframesEnd: encodeEndSeconds(picture, chunk) } : {}),
    ...(durationSeconds !== undefined
      ? { soundPadTo: encodeEndSeconds(Math.max(durationSeconds, videoSeconds ?? 0), chunk) }
      : {}),
    ...(picture !== undefined && videoSeconds !== undefined && picture > videoSeconds
      ? { picturePadTo: encodeEndSeconds(picture, chunk) }
      : {}),
  };
}

/**
 * The picture held on its last frame up to `endSeconds` on its timeline, when the sound runs longer:
 * tpad clones without end, trim cuts at that time (nothing of a picture that reaches it), so the last
 * segment's picture, and its EXTINF, run as long as its sound. The cut is a millisecond early: a
 * clone starting at the end itself (the probe's duration is rounded to the microsecond) is no frame
 * of the video, and no frame is that short.
 */
export function picturePadFilter(endSeconds: number): string {
  return `tpad=stop_mode=clone:stop=-1,trim=end=${formatNumber(endSeconds - 0.001)}`;
}

export interface HlsEncodeOptions {
  input: string;
  /** Set: one chunk of the video (its own segment numbers, timestamps and audio track). */
  chunk?: ChunkWindow;
  settings: HlsEncodeSettings;
  /** How long the source's video lasts (see keyframesEndSeconds); absent: unknown. */
  videoSeconds?: number;
  /** How long the video lasts, its longer stream (the probe's duration): the streams are padded to it (outputEnds); absent: not padded. */
  durationSeconds?: number;
  /** Encoder threads; 0 lets x264 decide (one per core and a half). */
  threads: number;
  /** Two-pass runs: pass 1 writes only the stats file, pass 2 reads it and writes the HLS. */
  pass?: { number: 1 | 2; logFile: string };
}

/** Seconds between keyframes: Apple's authoring specification asks for one every 2 s. */
export const keyframeSeconds = 2;

// Where the keyframes stop (the tail folded): the contract's rule, which just-in-time playlists plan with too.
export { keyframesEndSeconds };

/**
 * Keyframes forced every 2 s (IDR, so every segment starts with one), which puts one on every
 * multiple of the segment length: segments exactly `segmentSeconds` long. Every rendition of a
 * video has the same frame rate, so every rendition puts keyframes on the same frames and the
 * segments line up across the ladder. None from keyframesEndSeconds on, and x264's own keyframe
 * interval (`-g`) long enough never to add one in the last stretch (2 s and the folded tail); no
 * scene-cut keyframes, which would differ between renditions.
 */
export function keyframeArgs(
  settings: Pick<HlsEncodeSettings, 'frameRate' | 'segmentSeconds'>,
  endSeconds: number | undefined,
): string[] {
  const { gop, forceKeyFrames } = keyframeGrid(settings, endSeconds);
  return ['-g', gop, '-sc_threshold', '0', '-force_key_frames', forceKeyFrames, '-forced-idr', '1'];
}

/** The grid's two settings: the encoder's own interval (`-g`) and ffmpeg's forced keyframes. */
function keyframeGrid(
  settings: Pick<HlsEncodeSettings, 'frameRate' | 'segmentSeconds'>,
  endSeconds: number | undefined,
): { gop: string; forceKeyFrames: string } {
  const until = keyframesEndSeconds(settings, endSeconds);
  const forced = `gte(t,n_forced*${keyframeSeconds})`;
  return {
    gop: String(Math.ceil(settings.frameRate * (keyframeSeconds + hlsMinimumLastSegmentSeconds)) + 1),
    forceKeyFrames: `expr:${Number.isFinite(until) ? `${forced}*lt(t,${formatNumber(until)})` : forced}`,
  };
}

/**
 * The picture's filters of one rendition: the frame rate capped, the picture scaled to the rung
 * (and tone-mapped), the watermark laid over it, then handed to a hardware encoder. `before`:
 * filters that come first (the picture held to its end, picturePadFilter). In a complex graph the
 * rendition's picture comes from the stream labelled `input` and goes to `output`, `id` telling its
 * labels from other renditions'; without labels (`-vf`) the graph's one open input and output are
 * the stream's.
 */
export function videoFilterGraph(
  settings: HlsEncodeSettings,
  { input, output, before = [], id = '' }: { input?: string; output?: string; before?: string[]; id?: string } = {},
): string {
  const from = input === undefined ? '' : `[${input}]`;
  const to = output === undefined ? '' : `[${output}]`;
  const picture = [...before];
  if (settings.capFrameRate) picture.push(`fps=${formatNumber(settings.frameRate)}`);
  // The orchestrator computed a size with the source's display aspect; setsar=1 makes pixels square
  // so RESOLUTION in the master playlist is what players show.
  picture.push(`scale=${settings.width}:${settings.height}:flags=bicubic`, 'setsar=1');
  // After scaling: the tone map (float RGB) costs per pixel, and a rung is smaller than the source.
  if (settings.toneMapFrom) picture.push(toneMapFilter(settings.toneMapFrom, settings.pixelFormat));
  // Last: the finished picture goes to the GPU (VA-API, Quick Sync); NVENC takes it from memory.
  const upload = settings.hardwareEncoder && encoderUploadFilter(settings.hardwareEncoder);
  if (!settings.watermark) return `${from}${[...picture, ...(upload ? [upload] : [])].join(',')}${to}`;
  // On the finished picture, at the rung's size: the same share of the picture at every rung, drawn
  // in the picture's own colours (after the tone map), before the upload to the GPU.
  const overlay = [watermarkOverlayFilter(settings.watermark, settings), ...(upload ? [upload] : [])].join(',');
  return [
    `${from}${picture.join(',')}[pic${id}]`,
    `${watermarkImageFilter(settings.watermark, settings.width)}[wm${id}]`,
    `[pic${id}][wm${id}]${overlay}${to}`,
  ].join(';');
}

/** A watermark of a rendition: the contract's, with the image as a local file the node fetched. */
export interface WatermarkOverlay extends Omit<Watermark, 'imageId'> {
  imageFile: string;
}

/** The watermark's size and margins in pixels at a rung: shares of the picture's width (and height, for the top and bottom margin). */
export function watermarkPixels(
  watermark: Pick<WatermarkOverlay, 'widthPercent' | 'marginPercent'>,
  picture: { width: number; height: number },
): { width: number; marginX: number; marginY: number } {
  return {
    // Even: chroma is subsampled 2:1, and an odd width would blur its last column into the picture.
    width: Math.max(2, 2 * Math.round((picture.width * watermark.widthPercent) / 200)),
    marginX: Math.round((picture.width * watermark.marginPercent) / 100),
    marginY: Math.round((picture.height * watermark.marginPercent) / 100),
  };
}

/**
 * The watermark image as a source of the graph: read once (movie), scaled to its width at the rung
 * (its height by its own aspect), with alpha, faded to its opacity. The one frame it makes is laid
 * over every frame of the picture (overlay repeats the last frame of its second input).
 */
export function watermarkImageFilter(watermark: WatermarkOverlay, pictureWidth: number): string {
  const { width } = watermarkPixels(watermark, { width: pictureWidth, height: 0 });
  const filters = [
    `movie=filename=${escapeFilterValue(watermark.imageFile)}`,
    `scale=${width}:-1:flags=lanczos`,
    'format=rgba',
    ...(watermark.opacity < 1 ? [`colorchannelmixer=aa=${formatNumber(watermark.opacity)}`] : []),
  ];
  return filters.join(',');
}

/** Where the watermark goes on the picture: its corner (or the centre), the margins from the edges. */
export function watermarkOverlayFilter(
  watermark: WatermarkOverlay,
  picture: { width: number; height: number },
): string {
  const { marginX, marginY } = watermarkPixels(watermark, picture);
  const [x, y] = {
    'top-left': [`${marginX}`, `${marginY}`],
    'top-right': [`main_w-overlay_w-${marginX}`, `${marginY}`],
    'bottom-left': [`${marginX}`, `main_h-overlay_h-${marginY}`],
    'bottom-right': [`main_w-overlay_w-${marginX}`, `main_h-overlay_h-${marginY}`],
    center: ['(main_w-overlay_w)/2', '(main_h-overlay_h)/2'],
  }[watermark.position];
  return `overlay=x=${x}:y=${y}:format=auto`;
}

/**
 * A file name as the value of a filter's option inside a filtergraph: escaped once for the option
 * (`'`, `\` and `:`) and again for the graph (`'`, `\`, `[`, `]`, `,` and `;`), as ffmpeg's
 * filtergraph documentation asks.
 */
export function escapeFilterValue(value: string): string {
  const option = value.replace(/[\\':]/g, (c) => `\\${c}`);
  return option.replace(/[\\'[\],;]/g, (c) => `\\${c}`);
}

/** zscale's name of each HDR transfer. */
const hdrTransferOf: Readonly<Record<HdrDynamicRange, string>> = { hdr10: 'smpte2084', hlg: 'arib-std-b67' };

/**
 * HDR (PQ or HLG, BT.2020) to SDR BT.709, chosen by measurement (bench/tone-map/run.sh,
 * docs/decisions/encoding.md "HDR sources"): to linear light with BT.2408's HDR reference white
 * (203 cd/m²) as 1.0, so the SDR part of an HDR picture keeps its level; to BT.709 primaries; then
 * Möbius, linear up to half of reference white and rolling off above it to a 1000 cd/m² peak (the
 * HLG reference display, and the mastering peak of most HDR10), no desaturation; the colours
 * BT.709 cannot show clipped to its gamut. The input's transfer, primaries and matrix are stated:
 * HDR of either transfer is BT.2100 (BT.2020 primaries, non-constant-luminance matrix), and a
 * stream tagged with its transfer alone still converts.
 */
export function toneMapFilter(from: HdrDynamicRange, pixelFormat: X264PixelFormat): string {
  return [
    `zscale=tin=${hdrTransferOf[from]}:pin=bt2020:min=bt2020nc:t=linear:p=bt2020:npl=${hdrReferenceWhiteNits}`,
    'format=gbrpf32le',
    'zscale=p=bt709',
    `tonemap=tonemap=mobius:param=0.5:desat=0:peak=${formatNumber(hdrPeakNits / hdrReferenceWhiteNits)}`,
    // Colours outside BT.709 come out of the primaries' conversion with negative components, which
    // would drag the luma below black: clipped to the gamut in integer RGB before the matrix.
    'zscale=t=bt709',
    'format=gbrp16le',
    'zscale=m=bt709:r=tv',
    `format=${pixelFormat}`,
  ].join(',');
}

/** BT.2408's HDR reference white (diffuse white, graphics white), cd/m²: SDR's 100 % in a tone map. */
const hdrReferenceWhiteNits = 203;
/** The brightest an HDR source is taken to be, cd/m² (brighter clips to SDR's white). */
const hdrPeakNits = 1000;

/**
 * The colour tags of a rendition: BT.709 for a tone-mapped one; BT.2100 (BT.2020 and the range's
 * transfer) for an HDR one, which x265 writes in its VUI as HDR players look for it; none for the
 * renditions of an SDR source, whose code values and description are the source's.
 */
function colourTags(settings: Pick<HlsEncodeSettings, 'toneMapFrom' | 'hdr'>): string[] {
  if (!settings.toneMapFrom && !settings.hdr) return [];
  const [primaries, transfer, matrix] = settings.hdr
    ? ['bt2020', hdrTransferOf[settings.hdr], 'bt2020nc']
    : ['bt709', 'bt709', 'bt709'];
  return ['-color_primaries', primaries, '-color_trc', transfer, '-colorspace', matrix, '-color_range', 'tv'];
}

export function rateControlArgs(settings: HlsEncodeSettings): string[] {
  const kbps = settings.videoBitrateKbps;
  if (settings.constantQuality !== undefined) {
    // Capped CRF: the quality is the target, the ladder's bitrate the ceiling over a 2 s buffer.
    return ['-crf', String(settings.constantQuality), '-maxrate', `${kbps}k`, '-bufsize', `${kbps * 2}k`];
  }
  // SVT-AV1 takes a maximum bitrate only with a constant quality: its VBR (and CBR) is the target
  // alone, its own rate control holding the peaks.
  if (settings.videoCodec === 'av1') return ['-b:v', `${kbps}k`];
  const floor = settings.minQuantizer === undefined ? [] : ['-qmin', String(settings.minQuantizer)];
  const { maxrateKbps, bufsizeKbps } = videoBufferOf(settings.rateControl, kbps);
  if (settings.rateControl === 'constantBitrate') {
    if (settings.videoCodec !== 'h264')
      return ['-b:v', `${kbps}k`, '-maxrate', `${maxrateKbps}k`, '-bufsize', `${bufsizeKbps}k`];
    // A one-second VBV at exactly the target, with HRD signalling (filler data keeps it constant).
    return [
      '-b:v',
      `${kbps}k`,
      '-minrate',
      `${kbps}k`,
      '-maxrate',
      `${maxrateKbps}k`,
      '-bufsize',
      `${bufsizeKbps}k`,
      '-x264-params',
      'nal-hrd=cbr',
    ];
  }
  // Variable: average at the target, peaks capped at 1.5x over a two-second buffer.
  return ['-b:v', `${kbps}k`, '-maxrate', `${maxrateKbps}k`, '-bufsize', `${bufsizeKbps}k`, ...floor];
}

/**
 * SVT-AV1's preset (0 slowest .. 13 fastest) for each x264 speed: a step of x264's list is a step of
 * SVT-AV1's from 12 down, and `medium` lands on 8, the fastest that SVT-AV1's authors recommend
 * for video on demand.
 */
export function svtAv1PresetOf(preset: X264Preset): number {
  return Math.max(2, 13 - x264Presets.indexOf(preset));
}

/**
 * The encoder's options of one rendition (its filter chain goes in separately: -vf or -filter_complex).
 * Every codec takes the same forced-keyframe grid (keyframeArgs), so the segments of an AV1 or HEVC
 * rendition cut on the same frames as the H.264 ladder's; scene-cut keyframes are off in each.
 */
function videoEncoderArgs(settings: HlsEncodeSettings, threads: number, endSeconds: number | undefined): string[] {
  if (settings.hardwareEncoder) return hardwareVideoEncoderArgs(settings, settings.hardwareEncoder, endSeconds);
  const { gop, forceKeyFrames } = keyframeGrid(settings, endSeconds);
  const tags = colourTags(settings);
  const common = [
    '-pix_fmt',
    settings.pixelFormat,
    ...tags,
    ...rateControlArgs(settings),
    '-g',
    gop,
    '-force_key_frames',
    forceKeyFrames,
  ];
  switch (settings.videoCodec) {
    case 'h264':
      return [
        '-c:v',
        'libx264',
        '-preset',
        settings.x264Preset,
        '-pix_fmt',
        settings.pixelFormat,
        ...tags,
        ...rateControlArgs(settings),
        ...keyframeArgs(settings, endSeconds),
        '-threads',
        String(threads),
        ...(settings.lowDelay ? liveLowDelayArgs(settings) : []),
      ];
    case 'hevc':
      // hvc1: the sample entry Apple's players ask for in fMP4 (hev1 does not play in Safari).
      return [
        '-c:v',
        'libx265',
        '-preset',
        settings.x264Preset,
        '-tag:v',
        'hvc1',
        ...common,
        '-forced-idr',
        '1',
        '-x265-params',
        `scenecut=0:open-gop=0:log-level=error${threads > 0 ? `:pools=${threads}` : ''}`,
      ];
    case 'av1':
      // SVT-AV1 honours forced keyframes (as key frames) from ffmpeg 6 on: the quality ffmpeg, not Debian's 5.1.
      return [
        '-c:v',
        'libsvtav1',
        '-preset',
        String(svtAv1PresetOf(settings.x264Preset)),
        ...common,
        '-svtav1-params',
        `scd=0${threads > 0 ? `:lp=${threads}` : ''}`,
      ];
    default:
      throw new Error(`no encoder for video codec ${String(settings.videoCodec)}`);
  }
}

/**
 * The hardware encoder a rendition may use on a node whose working encoders are `working`, or
 * undefined (software). Only where the software rules can be met the same way: the fixed ladder's
 * one-pass rate control (no two-pass, no capped CRF or quantizer floor, which have no equal on the
 * GPU), 8-bit 4:2:0 (what every one of them takes), SDR; H.264 and HEVC (the AV1 renditions run on
 * the quality ffmpeg, whose hardware encoders a node does not test).
 */
export function hardwareEncoderFor(
  settings: Pick<
    HlsEncodeSettings,
    'videoCodec' | 'pixelFormat' | 'twoPass' | 'constantQuality' | 'minQuantizer' | 'hdr' | 'audioOnly'
  >,
  working: readonly string[],
): HardwareVideoEncoder | undefined {
  if (settings.audioOnly || settings.videoCodec === 'av1' || settings.twoPass || settings.hdr) return undefined;
  if (settings.constantQuality !== undefined || settings.minQuantizer !== undefined) return undefined;
  if (settings.pixelFormat !== 'yuv420p') return undefined;
  return hardwareVideoEncoders.find(
    (encoder) => hardwareEncoderCodecs[encoder] === settings.videoCodec && working.includes(encoder),
  );
}

/** NVENC's presets (p1 fastest .. p7 slowest) for x264's speeds. */
const nvencPresetOf: Readonly<Record<X264Preset, string>> = {
  ultrafast: 'p1',
  superfast: 'p1',
  veryfast: 'p2',
  faster: 'p3',
  fast: 'p4',
  medium: 'p5',
  slow: 'p6',
  slower: 'p7',
  veryslow: 'p7',
  placebo: 'p7',
};

/** Quick Sync's presets (veryfast .. veryslow) for x264's speeds. */
const qsvPresetOf: Readonly<Record<X264Preset, string>> = {
  ultrafast: 'veryfast',
  superfast: 'veryfast',
  veryfast: 'veryfast',
  faster: 'faster',
  fast: 'fast',
  medium: 'medium',
  slow: 'slow',
  slower: 'slower',
  veryslow: 'veryslow',
  placebo: 'veryslow',
};

/**
 * A hardware encoder's options for the rules x264's rungs meet (docs/decisions/encoding.md,
 * "Hardware encoders"): the same rate and buffer (videoBufferOf: the segments' measured peak still
 * becomes BANDWIDTH), keyframes forced on the same 2 s grid as IDR frames with the encoder's own
 * interval no shorter (so the segments cut on the same frames as x264's and renditions from
 * different nodes join), no scene-cut keyframes, no B-frames (every GOP closed, frames in
 * presentation order), the same colour tags, and for HEVC the hvc1 sample entry.
 */
export function hardwareVideoEncoderArgs(
  settings: HlsEncodeSettings,
  encoder: HardwareVideoEncoder,
  endSeconds: number | undefined,
): string[] {
  const { gop, forceKeyFrames } = keyframeGrid(settings, endSeconds);
  const kbps = settings.videoBitrateKbps;
  const { maxrateKbps, bufsizeKbps } = videoBufferOf(settings.rateControl, kbps);
  const cbr = settings.rateControl === 'constantBitrate';
  const rate = [
    '-b:v',
    `${kbps}k`,
    ...(cbr ? ['-minrate', `${kbps}k`] : []),
    '-maxrate',
    `${maxrateKbps}k`,
    '-bufsize',
    `${bufsizeKbps}k`,
  ];
  const grid = ['-g', gop, '-force_key_frames', forceKeyFrames, '-bf', '0'];
  const tail = [...colourTags(settings), ...(hardwareEncoderCodecs[encoder] === 'hevc' ? ['-tag:v', 'hvc1'] : [])];
  if (encoder.endsWith('_nvenc'))
    return [
      '-c:v',
      encoder,
      '-preset',
      nvencPresetOf[settings.x264Preset],
      '-tune',
      'hq',
      '-rc',
      cbr ? 'cbr' : 'vbr',
      ...rate,
      ...grid,
      '-forced-idr',
      '1',
      '-no-scenecut',
      '1',
      '-pix_fmt',
      'yuv420p',
      ...tail,
    ];
  if (encoder.endsWith('_qsv'))
    return [
      '-c:v',
      encoder,
      '-preset',
      qsvPresetOf[settings.x264Preset],
      ...rate,
      ...grid,
      '-forced_idr',
      '1',
      '-look_ahead',
      '0',
      ...tail,
    ];
  // VA-API makes every forced keyframe an IDR frame by itself; its frames arrive as nv12 (the upload filter).
  return ['-c:v', encoder, '-rc_mode', cbr ? 'CBR' : 'VBR', ...rate, ...grid, ...tail];
}

/** The options that open the hardware device of an encode's renditions, before its inputs (none in software). */
function hardwareDeviceArgs(settings: readonly HlsEncodeSettings[]): string[] {
  const encoder = settings.find((s) => s.hardwareEncoder)?.hardwareEncoder;
  return encoder ? encoderDeviceArgs(encoder) : [];
}

/** The picture's filters and encoder; with `padTo`, the picture held on its last frame up to it first. */
function videoArgs(
  settings: HlsEncodeSettings,
  threads: number,
  endSeconds: number | undefined,
  padTo: number | undefined,
): string[] {
  const before = padTo === undefined ? [] : [picturePadFilter(padTo)];
  const graph = videoFilterGraph(settings, { before });
  return ['-vf', graph, ...videoEncoderArgs(settings, threads, endSeconds)];
}

/**
 * The audio encoder's options, and with `endSeconds` (the end of the output's video, from the
 * output's start) a sound that stops before it padded with silence up to it: a last segment with
 * picture and no sound stalls hls.js before its end for ever (issue 52), and a player that meets
 * one track shorter than the other may stop at the shorter. `apad` pads without end and `atrim`
 * cuts at that time on the output's timeline: apad's own `whole_dur` counts samples, which overshoots
 * by the delay of a sound that starts after the picture. A sound longer than the picture is left
 * as it is (the video's end is the sound's), and the picture is held to it (picturePadFilter).
 */
function audioArgs(audio: NonNullable<HlsEncodeSettings['audio']>, endSeconds: number | undefined): string[] {
  const pad = endSeconds !== undefined && endSeconds > 0 ? ['-af', audioPadFilter(endSeconds)] : [];
  return [
    ...pad,
    '-c:a',
    audio.encoding.encoder,
    '-b:a',
    `${audio.bitrateKbps}k`,
    '-ac',
    String(audio.channels),
    '-ar',
    '48000', // every one of the four encoders takes 48 kHz
  ];
}

/** The filter that pads a sound with silence to `endSeconds` on its timeline (and ends it there). */
export function audioPadFilter(endSeconds: number): string {
  return `apad,atrim=end=${formatNumber(endSeconds)}`;
}

/**
 * A broadcast's sound padded with silence to its picture's end, whose time is not known until it
 * comes: `apad` without an end, and the output ended by its shortest stream, the picture. A publisher
 * that stops ends its sound before its picture (its encoder's held frames come after it: 0.58 s with
 * x264 `veryfast`), and hls.js 1.7 stalls for ever before a last part, or a last segment, that has
 * picture and no sound, as it did on a file's (issue 52; docs/decisions/live.md, "The end of a
 * broadcast").
 */
export const liveSoundPadArgs: readonly string[] = ['-af', 'apad', '-shortest'];

/**
 * HLS with fMP4 (CMAF) segments, written with relative names into ffmpeg's working directory, or
 * into its subdirectory `prefix` (e.g. `720p/`; the init segment goes beside the playlist).
 *
 * Timestamps stay as encoded (`-avoid_negative_ts disabled`: a chunk's are the video's), but for
 * `audioAlone`, an audio-only rendition's, which start at 0 (`make_zero`): AAC's priming puts the
 * first packet 1024 samples before 0, which fMP4 writes as a base media decode time of 2^64 - 1024,
 * and Shaka, which offsets each segment by its own, then has Chromium refuse it ("PTS for audio
 * frame exceeds range"). Where the sound is muxed with a picture, the picture's time leads and the
 * same packets play. Alone, the sound starts 21 ms (1024 samples at 48 kHz) after the picture's
 * time 0, within lip-sync tolerance. A broadcast's (`live`) start at 0 too, picture and sound
 * shifted together (by the picture's first decode time, a frame before 0): hls.js, joining a live
 * stream mid-way and then fetching its first segment (a seek back), put that segment's sound at
 * 2^64 - 1024 samples, 24.9 hours on, and played to there at the stream's end (issue 56). Nothing is
 * cut in pieces, so no time needs to stay the source's. A broadcast's shift is `make_non_negative`,
 * not `make_zero`: the same for the first node (its times begin below 0), while a node taking a
 * broadcast over keeps the times `-output_ts_offset` gives it (past the stored recording), which
 * `make_zero` would move back to 0, over the recording's (seen: a frame a second lost per takeover).
 */
export function hlsMuxerArgs(
  segmentSeconds: number,
  prefix = '',
  firstSegment = 0,
  audioAlone = false,
  pattern = hlsSegmentPattern,
  live = false,
): string[] {
  return [
    '-f',
    'hls',
    '-hls_time',
    String(segmentSeconds),
    ...(firstSegment > 0 ? ['-start_number', String(firstSegment)] : []),
    // A broadcast's playlist (issue 56) grows while it runs and keeps every segment (the recording
    // and DVR): EVENT, ended by EXT-X-ENDLIST only when the input ends.
    '-hls_playlist_type',
    live ? 'event' : 'vod',
    '-hls_segment_type',
    'fmp4',
    '-hls_fmp4_init_filename',
    hlsInitName,
    '-hls_segment_filename',
    prefix + pattern,
    // temp_file: a segment is written under a temporary name and renamed once complete, so the node
    // uploads each one the moment it appears (a viewer may be waiting for it: just-in-time segments).
    // A live segment carries its wall-clock time (EXT-X-PROGRAM-DATE-TIME): players place the live
    // edge by it, and latency is measured against it.
    '-hls_flags',
    live ? 'independent_segments+temp_file+program_date_time' : 'independent_segments+temp_file',
    '-avoid_negative_ts',
    audioAlone ? 'make_zero' : live ? 'make_non_negative' : 'disabled',
    '-hls_segment_options',
    'movflags=+frag_discont',
    prefix + hlsPlaylistName,
  ];
}

/**
 * A broadcast's HLS muxer. With `partSeconds` (low latency), ffmpeg writes parts, not segments: its
 * hls muxer makes no LL-HLS parts, so each file it writes is one part, a CMAF fragment (moof and
 * mdat) starting on a keyframe (livePartKeyframeArgs puts one every part), renamed into place once
 * closed (`temp_file`). The muxer cuts at the first keyframe past `hls_time` times the files it has
 * cut: half a part is below every keyframe's time, so it cuts at every keyframe and the parts are
 * the keyframe grid's (a whole part would skip a keyframe landing a frame early). The orchestrator
 * groups parts into 6 s segments and writes the playlist (docs/decisions/live.md); ffmpeg's own
 * playlist only tells the node which files are closed, with their durations and times.
 */
function liveMuxerArgs(
  segmentSeconds: number,
  prefix: string,
  partSeconds: number | undefined,
  firstFile: number,
): string[] {
  if (partSeconds === undefined) return hlsMuxerArgs(segmentSeconds, prefix, firstFile, false, hlsSegmentPattern, true);
  return hlsMuxerArgs(partSeconds / 2, prefix, firstFile, false, hlsLivePartPattern, true);
}

/**
 * A low-latency broadcast's keyframes: one every part, counted in frames (the whole frames that fit
 * in a part: 30 at 30 fps, 29 at 29.97), so every part starts with one and lasts at most a part. A
 * live picture keeps each frame's time on the encoder's 1/rate grid, so a count is a length. Given
 * after the encoder's own grid, which they replace. Costs a keyframe a second where files have one
 * every 2 s.
 */
export function livePartKeyframeArgs(frameRate: number, partSeconds: number): string[] {
  const frames = String(Math.max(1, Math.floor(frameRate * partSeconds + 1e-6)));
  return ['-g', frames, '-force_key_frames', `expr:eq(mod(n,${frames}),0)`];
}

/**
 * A low-latency broadcast's encoder, without the frames it holds back: libx264's `zerolatency` tune
 * (no B-frames, no lookahead or macroblock tree, slices rather than frames across threads). A part
 * closes only once its next part's keyframe comes out of the encoder, so whatever the encoder holds
 * is added to every part: 20 frames at `veryfast` with auto threads (0.67 s at 30 fps), 1 with the
 * tune; on a noisy 720p source at 2.5 Mbit/s the picture measured the same (PSNR 26.60 against
 * 26.61 dB). docs/decisions/live.md, the latency budget. Hardware encoders are left as they are
 * (hardwareVideoEncoderArgs gives them no B-frames already).
 */
export function liveLowDelayArgs(settings: Pick<HlsEncodeSettings, 'videoCodec' | 'hardwareEncoder'>): string[] {
  return settings.videoCodec === 'h264' && !settings.hardwareEncoder ? ['-tune', 'zerolatency'] : [];
}

/**
 * The HLS muxer of a video's (or a chunk's) picture: 6 s segments numbered for the whole video, or a
 * bootstrap window's 2 s bootstrap segments (ChunkWindow.bootstrap), cut on the same keyframe grid.
 */
function chunkMuxerArgs(segmentSeconds: number, prefix: string, chunk: ChunkWindow | undefined): string[] {
  if (!chunk?.bootstrap) return hlsMuxerArgs(segmentSeconds, prefix, chunk?.firstSegment);
  const first = Math.round(chunk.startSeconds / hlsBootstrapSeconds);
  return hlsMuxerArgs(hlsBootstrapSeconds, prefix, first, false, hlsBootstrapPattern);
}

/**
 * A picture rendition copied without its sound from its playlist (`input`, naming its init and
 * segments): the same packets into the same HLS muxer at the same segment length, so the cuts fall
 * on the same keyframes and each segment lasts what the original's did (the caller checks). The
 * timestamps stay as they are, as the original's muxer kept them.
 */
export function pictureCopyArgs(input: string, segmentSeconds: number): string[] {
  return [
    ...inputArgsFor(input),
    '-i',
    input,
    '-map',
    '0:v:0',
    '-c:v',
    'copy',
    '-an',
    '-map_metadata',
    '-1',
    '-map_chapters',
    '-1',
    ...hlsMuxerArgs(segmentSeconds),
  ];
}

/** One ffmpeg run of a rendition (or one pass of a two-pass encode). */
export function hlsEncodeArgs({
  input,
  settings,
  threads,
  pass,
  chunk,
  videoSeconds,
  durationSeconds,
}: HlsEncodeOptions): string[] {
  if (settings.pictureCopy) {
    if (pass || chunk) throw new Error('a picture copy is one pass of the whole rendition');
    return pictureCopyArgs(input, settings.segmentSeconds);
  }
  if (settings.audioOnly) {
    if (!settings.audio || pass || chunk) throw new Error('an audio-only rendition has audio, one pass and no chunks');
    return [
      ...inputsFor(input, undefined, false),
      '-map',
      `0:a:${settings.audioStream ?? 0}`,
      '-vn',
      // An alternate track of a video with a picture runs to the video's end as the first track does
      // (audioPadSeconds); an audio-only source's sound is the whole video, nothing to pad it to.
      ...audioArgs(settings.audio, settings.audioPadSeconds),
      '-map_metadata',
      '-1',
      '-map_chapters',
      '-1',
      ...hlsMuxerArgs(settings.segmentSeconds, '', 0, true),
    ];
  }
  const { keyframesEnd: endSeconds, soundPadTo, picturePadTo } = outputEnds(videoSeconds, durationSeconds, chunk);
  if (pass?.number === 1) {
    // Pass 1 only gathers statistics: no audio, no output file (the same frames as pass 2).
    return [
      ...inputsFor(input, chunk, false),
      '-map',
      '0:v:0',
      ...chunkOutputArgs(chunk),
      ...videoArgs(settings, threads, endSeconds, picturePadTo),
      '-pass',
      '1',
      '-passlogfile',
      pass.logFile,
      '-an',
      '-f',
      'null',
      '-',
    ];
  }
  const args = [
    ...hardwareDeviceArgs([settings]),
    ...inputsFor(input, chunk, Boolean(settings.audio)),
    '-map',
    '0:v:0',
  ];
  if (settings.audio) args.push('-map', audioMap(chunk));
  args.push(...chunkOutputArgs(chunk), ...videoArgs(settings, threads, endSeconds, picturePadTo));
  if (pass) args.push('-pass', '2', '-passlogfile', pass.logFile);
  if (settings.audio) args.push(...audioOutputArgs(settings.audio, chunk, soundPadTo));
  args.push('-map_metadata', '-1', '-map_chapters', '-1');
  return [...args, ...chunkMuxerArgs(settings.segmentSeconds, '', chunk)];
}

export interface AudioTrackOptions {
  input: string;
  /** `copy`: the input's first audio stream as it is (a remux); else the encoding to make. */
  audio: NonNullable<HlsEncodeSettings['audio']> | 'copy';
  output: string;
  /**
   * Set: only the input up to `endSeconds` (a chunk's audio head, ChunkWindow): from 0 its packets
   * are the whole track's, but for the last few, which the encoder flushes.
   */
  endSeconds?: number;
  /**
   * Set above 0: the input from `startSeconds` (to `endSeconds`), its packets timed on the input's
   * timeline (a chunk seeks it as it seeks the source).
   */
  startSeconds?: number;
  /**
   * How long the video lasts (the probe's duration): an encoded track is padded with silence to it
   * (or to `endSeconds`, the earlier), so the chunks that copy it hold sound to the picture's end
   * (audioArgs). A copy (`audio.m4a` of an AAC source) is the source's sound as it is.
   */
  durationSeconds?: number;
}

/**
 * A video's audio alone as one MP4: the whole video's audio track, encoded once for a chunked
 * encode (ChunkWindow; MP4, so its packets keep their timestamps and the encoder's priming for the
 * chunks that copy them), or the `audio.m4a` download. moov goes first (faststart): a player or a
 * chunk's ffmpeg reading it over HTTP starts without seeking to the end.
 */
export function audioTrackArgs({
  input,
  audio,
  output,
  startSeconds = 0,
  endSeconds,
  durationSeconds,
}: AudioTrackOptions): string[] {
  const from = startSeconds > 0 ? ['-ss', formatNumber(startSeconds)] : [];
  // The pad's end on the filters' timeline, which starts at the seek point.
  const padTo =
    durationSeconds === undefined ? undefined : Math.min(durationSeconds, endSeconds ?? Infinity) - startSeconds;
  return [
    ...inputArgsFor(input),
    ...from,
    ...(endSeconds !== undefined ? ['-t', formatNumber(endSeconds - startSeconds)] : []),
    '-i',
    input,
    '-map',
    '0:a:0',
    '-vn',
    ...(audio === 'copy' ? ['-c:a', 'copy'] : audioArgs(audio, padTo)),
    '-map_metadata',
    '-1',
    '-map_chapters',
    '-1',
    ...(startSeconds > 0 ? ['-output_ts_offset', formatNumber(startSeconds)] : []),
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    output,
  ];
}

export interface HlsLadderOptions {
  input: string;
  /** Set: one chunk of the video (its own segment numbers, timestamps and audio track). */
  chunk?: ChunkWindow;
  /** Each rendition's settings and the subdirectory (of ffmpeg's working directory) it is written to. */
  outputs: { settings: HlsEncodeSettings; dir: string }[];
  /** How long the source's video lasts (see keyframesEndSeconds); absent: unknown. */
  videoSeconds?: number;
  /** How long the video lasts, its longer stream: the streams are padded to it (outputEnds); absent: not padded. */
  durationSeconds?: number;
  threads: number;
  /** Two-pass runs: one stats file per rendition, in `outputs` order. */
  pass?: { number: 1 | 2; logFiles: string[] };
  /**
   * A broadcast read as it is published (an RTMP URL; issue 56): the same ladder, each rung's
   * playlist an EVENT playlist with EXT-X-PROGRAM-DATE-TIME, ended when the input ends. No chunks, no
   * passes, no length known.
   */
  live?: boolean;
  /** A low-latency broadcast's: its parts' length; ffmpeg then writes parts, not segments (liveMuxerArgs). */
  livePartSeconds?: number;
  /** A broadcast taken over from another node: the number of its first file (part or segment), past those stored. */
  liveFirstFile?: number;
  /** A broadcast taken over from another node: its first frame's time, where the stored recording ends. */
  liveStartSeconds?: number;
}

/**
 * Several renditions from one decode of the source: the decoded video is split once per rendition,
 * each branch runs that rendition's filter chain into its own encoder and HLS muxer (or, in pass 1,
 * a null output with its own stats file).
 */
export function hlsLadderArgs({
  input,
  outputs,
  threads,
  pass,
  chunk,
  videoSeconds,
  durationSeconds,
  live = false,
  livePartSeconds,
  liveFirstFile = 0,
  liveStartSeconds = 0,
}: HlsLadderOptions): string[] {
  if (live && (chunk || pass || videoSeconds !== undefined))
    throw new Error('a live ladder is one pass of an open input');
  const { keyframesEnd: endSeconds, soundPadTo, picturePadTo } = outputEnds(videoSeconds, durationSeconds, chunk);
  const n = outputs.length;
  const pad = picturePadTo === undefined ? '' : `${picturePadFilter(picturePadTo)},`;
  const split = `[0:v:0]${pad}split=${n}${outputs.map((_, k) => `[s${k}]`).join('')}`;
  const chains = outputs.map(({ settings }, k) =>
    videoFilterGraph(settings, { input: `s${k}`, output: `v${k}`, id: String(k) }),
  );
  const withAudio = outputs.some((o) => o.settings.audio);
  const args = [
    ...hardwareDeviceArgs(outputs.map((o) => o.settings)),
    ...inputsFor(input, chunk, withAudio),
    '-filter_complex',
    [split, ...chains].join(';'),
  ];
  outputs.forEach(({ settings, dir }, k) => {
    args.push('-map', `[v${k}]`);
    if (pass?.number === 1) {
      // ffmpeg names a stats file after the stream's index among ALL outputs: pass 1 keeps the
      // audio streams of pass 2 (copied into the null output, nearly free) so the indices match.
      args.push(
        ...chunkOutputArgs(chunk),
        ...videoEncoderArgs(settings, threads, endSeconds),
        '-pass',
        '1',
        '-passlogfile',
        pass.logFiles[k]!,
      );
      if (settings.audio) args.push('-map', audioMap(chunk), '-c:a', 'copy');
      else args.push('-an');
      args.push('-f', 'null', '-');
      return;
    }
    if (settings.audio) args.push('-map', audioMap(chunk));
    // A low-latency broadcast's rungs are encoded low-delay, as what is encoded again to join them is.
    const encoder = livePartSeconds === undefined ? settings : { ...settings, lowDelay: true };
    args.push(...chunkOutputArgs(chunk), ...videoEncoderArgs(encoder, threads, endSeconds));
    // FLV times frames in whole milliseconds (33, 67, 100 ms at 30 fps): a constant-rate output
    // would duplicate a frame where the rounding adds up, and a recording must hold exactly the frames
    // published. Each frame keeps its own time.
    if (live) args.push('-fps_mode:v', 'passthrough');
    if (livePartSeconds !== undefined) args.push(...livePartKeyframeArgs(settings.frameRate, livePartSeconds));
    if (pass) args.push('-pass', '2', '-passlogfile', pass.logFiles[k]!);
    if (settings.audio) args.push(...audioOutputArgs(settings.audio, chunk, soundPadTo));
    if (live && settings.audio) args.push(...liveSoundPadArgs);
    // A broadcast taken over goes on from the recording's end: its times never go back (players and
    // the recording's MP4 downloads read one timeline across the gap).
    if (liveStartSeconds > 0) args.push('-output_ts_offset', liveStartSeconds.toFixed(6));
    args.push(
      '-map_metadata',
      '-1',
      '-map_chapters',
      '-1',
      ...(live
        ? liveMuxerArgs(settings.segmentSeconds, `${dir}/`, livePartSeconds, liveFirstFile)
        : chunkMuxerArgs(settings.segmentSeconds, `${dir}/`, chunk)),
    );
  });
  return args;
}

export interface ThumbnailOptions {
  input: string;
  timestampSeconds: number;
  /** 0 for both: the source's size. One of them 0: the other scaled with the aspect kept. */
  width: number;
  height: number;
  output: string;
  /** Set: the source is HDR in this range; the picture is SDR, tone-mapped as the SDR renditions are. */
  toneMapFrom?: HdrDynamicRange;
  /** The picture's format (default `jpg`): JPEG at quality 3, lossless PNG, or WebP at quality 85. */
  format?: PictureFormat;
}

/** The still pictures Kino makes: thumbnails, and frames of any moment (delivery's `/t/` paths). */
export const pictureFormats = ['jpg', 'png', 'webp'] as const;
export type PictureFormat = (typeof pictureFormats)[number];

const pictureEncoderArgs: Record<PictureFormat, string[]> = {
  jpg: ['-q:v', '3'],
  png: [],
  webp: ['-c:v', 'libwebp', '-quality', '85'],
};

export function thumbnailFilter(width: number, height: number): string | undefined {
  if (width > 0 && height > 0) {
    // Exactly the requested size: fill it and crop the overflow, like a cover image. Full-resolution
    // chroma (4:4:4), so odd sizes stay exact (4:2:0 would round them down to even).
    return `scale=${width}:${height}:force_original_aspect_ratio=increase,crop=${width}:${height},setsar=1,format=yuvj444p`;
  }
  if (width > 0) return `scale=${width}:-2,setsar=1`;
  if (height > 0) return `scale=-2:${height},setsar=1`;
  return undefined;
}

/** One picture at a timestamp (input seeking: fast, and exact to the frame with re-encoding). */
export function thumbnailArgs({
  input,
  timestampSeconds,
  width,
  height,
  output,
  toneMapFrom,
  format = 'jpg',
}: ThumbnailOptions): string[] {
  // Tone-mapped at the source's size (one frame), in 4:4:4 so that the exact size's crop stays exact.
  const toSdr = toneMapFrom ? toneMapFilter(toneMapFrom, 'yuv444p') : undefined;
  const resize = thumbnailFilter(width, height);
  const filter = [toSdr, resize].filter(Boolean).join(',');
  return [
    ...inputArgsFor(input),
    '-ss',
    formatNumber(Math.max(0, timestampSeconds)),
    '-i',
    input,
    '-map',
    '0:v:0',
    '-frames:v',
    '1',
    ...(filter ? ['-vf', filter] : []),
    ...pictureEncoderArgs[format],
    '-f',
    'image2',
    '-update',
    '1',
    output,
  ];
}

/** The animated previews Kino makes (delivery's `animated.webp` and `animated.gif`). */
export const animatedFormats = ['webp', 'gif'] as const;
export type AnimatedFormat = (typeof animatedFormats)[number];

export interface AnimatedPreviewOptions {
  input: string;
  startSeconds: number;
  durationSeconds: number;
  /** Pixels; the height follows the picture's aspect (even). */
  width: number;
  fps: number;
  format: AnimatedFormat;
  output: string;
  /** Set: the source is HDR in this range; the preview is SDR, tone-mapped as the SDR renditions are. */
  toneMapFrom?: HdrDynamicRange;
}

/**
 * An animated preview: `durationSeconds` from `startSeconds` (input seeking, exact), at `fps` and
 * `width`, looping. WebP: lossy at quality 70, each frame whole (libwebp_anim). GIF: one palette
 * made for the whole clip (palettegen), applied with ordered dithering, so flat areas do not crawl.
 */
export function animatedPreviewArgs({
  input,
  startSeconds,
  durationSeconds,
  width,
  fps,
  format,
  output,
  toneMapFrom,
}: AnimatedPreviewOptions): string[] {
  const toSdr = toneMapFrom ? `${toneMapFilter(toneMapFrom, 'yuv444p')},` : '';
  const picture = `${toSdr}fps=${fps},scale=${width}:-2:flags=lanczos,setsar=1`;
  const filter =
    format === 'gif'
      ? `${picture},split[frames][again];[again]palettegen=stats_mode=diff[palette];[frames][palette]paletteuse=dither=bayer`
      : picture;
  return [
    ...inputArgsFor(input),
    '-ss',
    formatNumber(Math.max(0, startSeconds)),
    '-t',
    formatNumber(durationSeconds),
    '-i',
    input,
    '-map',
    '0:v:0',
    '-vf',
    filter,
    ...(format === 'webp' ? ['-c:v', 'libwebp_anim', '-quality', '70'] : ['-c:v', 'gif']),
    '-loop',
    '0',
    '-f',
    format,
    output,
  ];
}

export interface StoryboardOptions {
  input: string;
  intervalSeconds: number;
  tileWidth: number;
  columns: number;
  rows: number;
  sheets: number;
  /** An image2 pattern numbering sheets from 0 (storyboardSheetPattern in a job directory). */
  outputPattern: string;
  /** Set: the source is HDR in this range; the tiles are tone-mapped as the SDR renditions are. */
  toneMapFrom?: HdrDynamicRange;
}

/**
 * Sprite sheets: one frame every `intervalSeconds` (the fps filter, so every tile is the frame at
 * its time, not the nearest keyframe), scaled to `tileWidth` (height by the display aspect, even),
 * tiled `columns` x `rows` a sheet; the last sheet is padded. The decode is the cost: cheap next
 * to an encode, and the frames are dropped before scaling. `eof_action=pass`: the fps filter
 * rounds each output time to the nearest input frame, so a last interval shorter than half its
 * length had no frame (a 2 s video no tile at all, and its storyboard failed on every retry; an
 * 11 s one a black third tile); passed at the end, it is the video's last frame, one per tile.
 */
export function storyboardArgs({
  input,
  intervalSeconds,
  tileWidth,
  columns,
  rows,
  sheets,
  outputPattern,
  toneMapFrom,
}: StoryboardOptions): string[] {
  // After the fps filter: only the frames kept are tone-mapped.
  const toSdr = toneMapFrom ? `${toneMapFilter(toneMapFrom, 'yuv420p')},` : '';
  return [
    ...inputArgsFor(input),
    '-i',
    input,
    '-map',
    '0:v:0',
    '-an',
    '-vf',
    `fps=1/${formatNumber(intervalSeconds)}:eof_action=pass,${toSdr}scale=${tileWidth}:trunc(ow/dar/2)*2,setsar=1,tile=${columns}x${rows}`,
    '-frames:v',
    String(sheets),
    '-q:v',
    '5',
    '-f',
    'image2',
    '-start_number',
    '0',
    outputPattern,
  ];
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(6)));
}

/**
 * The sound a speech engine reads (captions from speech): the source's first audio stream as 16 kHz
 * mono 16-bit WAV, Whisper's own input, so the engine resamples nothing. With a span (a piece of a
 * long video), only the sound from `startSeconds` to `endSeconds` (input seeking: fast, and exact
 * for audio).
 */
export function speechAudioArgs({
  input,
  output,
  startSeconds = 0,
  endSeconds = 0,
}: {
  input: string;
  output: string;
  startSeconds?: number;
  /** 0: to the end. */
  endSeconds?: number;
}): string[] {
  const span = [
    ...(startSeconds > 0 ? ['-ss', formatNumber(startSeconds)] : []),
    ...(endSeconds > startSeconds ? ['-t', formatNumber(endSeconds - startSeconds)] : []),
  ];
  return [
    ...inputArgsFor(input),
    ...span,
    '-i',
    input,
    '-map',
    '0:a:0',
    '-vn',
    '-ac',
    '1',
    '-ar',
    '16000',
    '-c:a',
    'pcm_s16le',
    '-f',
    'wav',
    output,
  ];
}
