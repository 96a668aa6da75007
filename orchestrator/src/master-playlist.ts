// The HLS master (multivariant) playlist of a video: one EXT-X-STREAM-INF per rendition, variant
// URIs relative to the master (`720p/playlist.m3u8`) so the same file plays from any host path.
import {
  audioGroupId,
  audioGroupRates,
  audioMediaLine,
  declaredPeakKbps,
  hlsPlaylistName,
  type MasterAudio,
} from '@kino/proto/contract';
import type { RenditionPlan } from './ladder.ts';

export type { MasterAudio } from '@kino/proto/contract';

export interface MasterVariant {
  /** `720p`: the rendition folder. */
  key: string;
  width: number;
  height: number;
  frameRate: number;
  /** RFC 6381, e.g. `avc1.64001f,mp4a.40.2`. */
  codecs: string;
  /** Peak bits per second of any segment (BANDWIDTH). */
  bandwidth: number;
  /** Average bits per second over the whole rendition (AVERAGE-BANDWIDTH). */
  averageBandwidth: number;
  /** VIDEO-RANGE: SDR, or the HDR transfer of an HDR rendition (absent: SDR, as in plans of before). */
  videoRange?: VideoRange;
}

export type VideoRange = 'SDR' | 'PQ' | 'HLG';

/**
 * A rendition's VIDEO-RANGE in its variant: the transfer of an HDR rendition; none for an SDR one,
 * SDR being what an absent one means (so the variants of an SDR video are as they were).
 */
export function videoRangeOf(plan: Pick<RenditionPlan, 'dynamicRange'>): Pick<MasterVariant, 'videoRange'> {
  if (plan.dynamicRange === 'hdr10') return { videoRange: 'PQ' };
  if (plan.dynamicRange === 'hlg') return { videoRange: 'HLG' };
  return {};
}

/**
 * A picture rendition as the master names it once encoded: its plan's size (the encode's where it
 * told one), rate and range, the encode's codecs and measured bandwidths. `videoRange` overrides the
 * plan's where the range was read elsewhere (a copy of a rendition keeps the original's).
 */
export function masterVariantOf(
  plan: Pick<RenditionPlan, 'key' | 'width' | 'height' | 'frameRate' | 'dynamicRange'>,
  outcome: { width: number; height: number; codecs: string; bandwidth: number; averageBandwidth: number },
  range: Pick<MasterVariant, 'videoRange'> = videoRangeOf(plan),
): MasterVariant {
  return {
    key: plan.key,
    width: outcome.width || plan.width,
    height: outcome.height || plan.height,
    frameRate: plan.frameRate,
    codecs: outcome.codecs,
    bandwidth: outcome.bandwidth,
    averageBandwidth: outcome.averageBandwidth,
    ...range,
  };
}

/** An alternate audio rendition as the master names it: its plan's track, the encode's figures. */
export function masterAudioOf(
  plan: Pick<RenditionPlan, 'key' | 'audioTrack'>,
  outcome: { codecs: string; bandwidth: number; averageBandwidth: number },
): MasterAudio {
  const track = plan.audioTrack;
  if (!track) throw new Error(`rendition ${plan.key} is not an alternate audio rendition`);
  return {
    key: plan.key,
    language: track.language,
    name: track.name,
    isDefault: track.isDefault,
    channels: track.channels,
    codecs: outcome.codecs,
    bandwidth: outcome.bandwidth,
    averageBandwidth: outcome.averageBandwidth,
  };
}

/**
 * The master playlist. With `audio` (a source's several tracks), the variants are pictures alone
 * and each names the audio group: its CODECS list the audio's too, and its BANDWIDTH and
 * AVERAGE-BANDWIDTH add those of the group's largest rendition (RFC 8216 4.3.4.2, Apple's rules).
 * Without, the variants carry their own sound and the file is what it always was.
 */
export function renderMasterPlaylist(variants: readonly MasterVariant[], audio: readonly MasterAudio[] = []): string {
  if (variants.length === 0) throw new Error('a master playlist needs at least one variant');
  const lines = ['#EXTM3U', '#EXT-X-VERSION:7', '#EXT-X-INDEPENDENT-SEGMENTS', ...audio.map(audioMediaLine)];
  const group = audioGroupOf(audio);
  // A master with an HDR variant says every variant's range (Apple's rules: players then skip what
  // their screen cannot show); one of SDR variants alone says none, SDR being what an absent one means.
  const withRanges = variants.some((v) => v.videoRange !== undefined && v.videoRange !== 'SDR');
  // Lowest first: players that start with the first listed variant start fast.
  for (const v of [...variants].sort((a, b) => a.bandwidth - b.bandwidth)) {
    // An audio-only variant (no picture: width, height and frame rate 0) has no RESOLUTION or FRAME-RATE.
    const picture = v.width > 0 && v.height > 0;
    const bandwidth = v.bandwidth + group.bandwidth;
    const averageBandwidth = Math.min(v.averageBandwidth, v.bandwidth) + group.averageBandwidth;
    const attributes = [
      `BANDWIDTH=${Math.round(bandwidth)}`,
      `AVERAGE-BANDWIDTH=${Math.round(averageBandwidth)}`,
      ...(picture ? [`RESOLUTION=${v.width}x${v.height}`] : []),
      `CODECS="${[v.codecs, ...group.codecs].join(',')}"`,
      ...(picture && v.frameRate > 0 ? [`FRAME-RATE=${v.frameRate.toFixed(3)}`] : []),
      ...(picture && withRanges ? [`VIDEO-RANGE=${v.videoRange ?? 'SDR'}`] : []),
      ...(audio.length > 0 ? [`AUDIO="${audioGroupId}"`] : []),
      // No CEA-608 captions in any picture (captions are WebVTT tracks), said as Apple's rules ask:
      // a player that is not told probes segments for them (Shaka fetches the first, the middle and
      // the last before its first frame, which just in time means making them first).
      'CLOSED-CAPTIONS=NONE',
    ];
    lines.push(`#EXT-X-STREAM-INF:${attributes.join(',')}`, `${v.key}/${hlsPlaylistName}`);
  }
  return `${lines.join('\n')}\n`;
}

/** What a variant adds for the audio group: its largest rendition's rates, and every codec in it. */
function audioGroupOf(audio: readonly MasterAudio[]): {
  bandwidth: number;
  averageBandwidth: number;
  codecs: string[];
} {
  return { ...audioGroupRates(audio), codecs: [...new Set(audio.map((a) => a.codecs))] };
}

/**
 * fMP4's boxes around the media (moof, traf, trun, mdat): a few per cent of a segment's bytes. Measured
 * on 6 s segments as the nodes write them: 0.2 % (720p at 2,500 kbps) to 1.3 % (360p at 500 kbps,
 * 60 fps) with 128 kbps AAC, 1.4 % for 128 kbps AAC alone, 3.7 % for 48 kbps AAC alone (the lowest
 * rate Kino writes: aac-he-v2's); 5 % bounds them all (docs/decisions/just-in-time.md).
 */
export const containerOverhead = 1.05;

/** The bits per second a stream of `kbps` of media takes in its segments: with containerOverhead, rounded up. */
export function segmentBitsPerSecond(kbps: number): number {
  return Math.ceil(kbps * 1000 * containerOverhead);
}

/**
 * A rendition's variant before its segments exist (a just-in-time video's master playlist): the
 * peak its rate control allows a segment (declaredPeakKbps: 2x the target for variable bit rate),
 * so BANDWIDTH is never below a segment's measured peak, and the target as AVERAGE-BANDWIDTH; both
 * with the audio and the container's overhead. The master is written again with the measured
 * figures once the ladder is complete. Size and CODECS come from the first segments' init segment.
 */
export function declaredVariant(
  plan: Pick<
    RenditionPlan,
    | 'key'
    | 'width'
    | 'height'
    | 'frameRate'
    | 'rateControlMode'
    | 'videoBitrateKbps'
    | 'audioBitrateKbps'
    | 'segmentSeconds'
    | 'dynamicRange'
  >,
  made: { width: number; height: number; codecs: string },
): MasterVariant {
  const bits = (kbps: number) => segmentBitsPerSecond(kbps + plan.audioBitrateKbps);
  return {
    key: plan.key,
    width: made.width || plan.width,
    height: made.height || plan.height,
    frameRate: plan.frameRate,
    codecs: made.codecs,
    bandwidth: bits(declaredPeakKbps(plan.rateControlMode, plan.videoBitrateKbps, plan.segmentSeconds)),
    averageBandwidth: bits(plan.videoBitrateKbps),
    ...videoRangeOf(plan),
  };
}
