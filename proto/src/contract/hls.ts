// HLS as Kino writes it (fMP4/CMAF, one directory per rendition) and serves it: the file names and
// the Content-Type each is stored and served with. The orchestrator presigns uploads bound to these
// types, nodes upload with them, delivery serves with them.

/**
 * The segment length: 6 s, Apple's recommendation (HLS authoring specification), and the grid that
 * chunked encodes cut on. A rendition's encode is given it (RenditionSpec.segment_seconds).
 */
export const hlsSegmentSeconds = 6;

/**
 * The shortest last segment Kino writes: a video a few frames past a multiple of the segment length
 * ends in one longer segment (up to the segment length plus this) instead of a sliver. Why 0.5 s:
 * - a sliver of a few frames often holds no audio at all (audio tends to end a little before the
 *   last video frame), and hls.js then stalls before the end and never fires `ended`;
 * - hls.js looks fragments up with a 0.25 s tolerance (maxFragLookUpTolerance), so a fragment
 *   shorter than that can be taken for one already buffered;
 * - a one-frame segment is mostly its keyframe: its bit rate is several times the rendition's;
 * - below half a second, a folded segment (6 s plus less than 0.5 s) still rounds to 6 s, so the
 *   playlist's EXT-X-TARGETDURATION stays at the 6 s Apple's authoring specification asks for.
 */
export const hlsMinimumLastSegmentSeconds = 0.5;

/**
 * Where the keyframes stop: at the segment boundary past which less than hlsMinimumLastSegmentSeconds
 * of video would be left. The HLS muxer cuts a segment at the first keyframe at or past each
 * multiple of the segment length; finding none there, it leaves the last few frames in the segment
 * before them instead of making a sliver of them. `endSeconds` counts from the output's start (a
 * chunk's own start). Infinity when the end is unknown.
 */
export function keyframesEndSeconds(
  { frameRate, segmentSeconds }: { frameRate: number; segmentSeconds: number },
  endSeconds: number | undefined,
): number {
  if (endSeconds === undefined || !(endSeconds > 0)) return Infinity;
  // The last boundary that still leaves a long enough last segment (0: none, the video is one segment).
  let lastCut = segmentSeconds * Math.floor(endSeconds / segmentSeconds);
  while (lastCut > 0 && endSeconds - segmentCutSeconds(frameRate, lastCut) < hlsMinimumLastSegmentSeconds)
    lastCut -= segmentSeconds;
  return lastCut + segmentSeconds;
}

/**
 * Where the picture an encode writes ends (issue 52): the source's picture, or the video's end (its
 * sound's) when the sound runs on past the picture by hlsMinimumLastSegmentSeconds or more: the
 * last frame is held that long, in segments cut as any picture's. A shorter overrun rides in the
 * last segment, as a short tail of frames does. Only a sound the probe says is longer: a truncated
 * source (picture and sound ending early, the index announcing both to the end) is not padded, so
 * its encode still falls short and is refused.
 */
export function encodedPictureSeconds({
  durationSeconds,
  videoSeconds,
}: {
  durationSeconds: number;
  videoSeconds: number;
}): number {
  return durationSeconds - videoSeconds >= hlsMinimumLastSegmentSeconds ? durationSeconds : videoSeconds;
}

/** Where the muxer cuts at `boundary`: the first frame at or past it (6.006 s at 29.97 fps). */
function segmentCutSeconds(frameRate: number, boundary: number): number {
  return frameRate > 0 ? Math.ceil(boundary * frameRate - 1e-6) / frameRate : boundary;
}

/**
 * A rendition's segments before any is encoded (just-in-time playlists): the cuts the keyframe grid
 * puts on the first frame at or past each multiple of the segment length, the tail folded as
 * keyframesEndSeconds folds it. `durationSeconds` is the video's (the encode's end), `videoSeconds`
 * its picture's; the keyframes stop by the encoded picture's end (encodedPictureSeconds). Names and durations as
 * renderMediaPlaylist takes them; the playlist written from the encoded segments replaces it once
 * the ladder is complete.
 */
export function plannedSegments({
  durationSeconds,
  videoSeconds,
  frameRate,
  segmentSeconds,
}: {
  durationSeconds: number;
  videoSeconds: number;
  frameRate: number;
  segmentSeconds: number;
}): PlaylistSegment[] {
  const end = Math.max(durationSeconds, videoSeconds);
  const picture = encodedPictureSeconds({ durationSeconds, videoSeconds });
  const count = Math.max(1, Math.round(keyframesEndSeconds({ frameRate, segmentSeconds }, picture) / segmentSeconds));
  const cuts = Array.from({ length: count }, (_, k) =>
    k === 0 ? 0 : segmentCutSeconds(frameRate, k * segmentSeconds),
  );
  return cuts.map((start, k) => ({
    name: hlsSegmentName(k),
    durationSeconds: Math.round(((k + 1 < count ? cuts[k + 1]! : end) - start) * 1e6) / 1e6,
  }));
}

/**
 * Bootstrap segments (issue 55; docs/decisions/just-in-time.md#bootstrap-segments): a video's first
 * segment is also made as short segments on the 2 s keyframe grid, which concatenate into it byte for
 * byte. A player given a playlist with `bootstrap=true` starts on the first of them: a just-in-time
 * video turns `ready` once that one exists in every H.264 rung.
 */
export const hlsBootstrapSeconds = 2;
/** How many bootstrap segments make the first segment. */
export const hlsBootstrapCount = hlsSegmentSeconds / hlsBootstrapSeconds;
/** A rendition's bootstrap playlist: its media playlist with the first segment as its bootstrap segments. */
export const hlsBootstrapPlaylistName = 'bootstrap.m3u8';

/**
 * Whether a bootstrap window (ChunkEncode.bootstrap) runs on past the first segment: a just-in-time
 * video's second run, from 2 s through the next run's segments. Its node writes it in 2 s pieces and
 * joins those past the first segment into 6 s segments; its chunk job joins the first segment early.
 */
export function bootstrapWindowPassesFirstSegment(window: {
  bootstrap?: boolean;
  startSeconds: number;
  durationSeconds: number;
}): boolean {
  return window.bootstrap === true && window.startSeconds + window.durationSeconds > hlsSegmentSeconds;
}

/** The name of bootstrap segment `index` (from 0) of a rendition's first segment: `boot-0.m4s`, ... */
export function hlsBootstrapName(index: number): string {
  return `boot-${index}.m4s`;
}

/** Whether `name` is one of hlsBootstrapName's. */
export function isHlsBootstrapName(name: string): boolean {
  return /^boot-\d+\.m4s$/.test(name);
}

/** ffmpeg's `-hls_segment_filename` pattern that writes `hlsBootstrapName`'s names. */
export const hlsBootstrapPattern = 'boot-%d.m4s';

/**
 * The bootstrap segments of a first segment `first` (plannedSegments' or the encoded one): cut as
 * the keyframe grid cuts, on the first frame at or past each multiple of hlsBootstrapSeconds.
 */
export function plannedBootstrapSegments(first: PlaylistSegment, frameRate: number): PlaylistSegment[] {
  const cuts = Array.from({ length: hlsBootstrapCount }, (_, k) =>
    k === 0 ? 0 : segmentCutSeconds(frameRate, k * hlsBootstrapSeconds),
  );
  return cuts.map((start, k) => ({
    name: hlsBootstrapName(k),
    durationSeconds: Math.round(((k + 1 < cuts.length ? cuts[k + 1]! : first.durationSeconds) - start) * 1e6) / 1e6,
  }));
}

/** The master playlist, beside the rendition directories. */
export const hlsMasterName = 'master.m3u8';
/** A rendition's media playlist, in the rendition's directory. */
export const hlsPlaylistName = 'playlist.m3u8';
/** A rendition's init segment (its `EXT-X-MAP`). */
export const hlsInitName = 'init.mp4';

/** The name of a rendition's media segment `index` (from 0): `seg-00000.m4s`, `seg-00001.m4s`, ... */
export function hlsSegmentName(index: number): string {
  return `seg-${String(index).padStart(5, '0')}.m4s`;
}

/** ffmpeg's `-hls_segment_filename` pattern that writes `hlsSegmentName`'s names. */
export const hlsSegmentPattern = 'seg-%05d.m4s';

export const hlsContentTypes = {
  playlist: 'application/vnd.apple.mpegurl',
  init: 'video/mp4',
  segment: 'video/iso.segment',
  thumbnail: 'image/jpeg',
} as const;

/** The Content-Type of a file by its name (a presigned PUT is bound to it). */
export function contentTypeForHlsFile(name: string): string {
  if (name.endsWith('.m3u8')) return hlsContentTypes.playlist;
  if (name.endsWith('.m4s')) return hlsContentTypes.segment;
  if (name.endsWith('.mp4')) return hlsContentTypes.init;
  if (name.endsWith('.jpg') || name.endsWith('.jpeg')) return hlsContentTypes.thumbnail;
  return 'application/octet-stream';
}

export interface Bandwidth {
  /** The peak segment bit rate (RFC 8216): the master playlist's BANDWIDTH. */
  peakBitsPerSecond: number;
  /** All segment bits over all segment time: AVERAGE-BANDWIDTH. */
  averageBitsPerSecond: number;
  durationSeconds: number;
}

/** A playlist's EXT-X-TARGETDURATION: every EXTINF, rounded to the nearest integer, is at most it (RFC 8216 4.3.3.1). */
export function hlsTargetDuration(segments: readonly { durationSeconds: number }[]): number {
  return Math.max(1, ...segments.map((s) => Math.round(s.durationSeconds)));
}

/**
 * Measures segment bit rates from sizes and EXTINF durations. The init segment is left out: a
 * player loads it once per rendition, not per segment.
 *
 * The peak is HLS's "peak segment bit rate" (RFC 8216), which Apple's authoring rules hold
 * BANDWIDTH to: the highest bit rate of any run of consecutive segments lasting between half and
 * one and a half target durations. Every whole segment is such a run, so BANDWIDTH bounds each of
 * them; a short last segment (a keyframe and little else) counts only together with the one before
 * it, so it cannot inflate BANDWIDTH. With no such run (a video shorter than half a target
 * duration), the peak is the average.
 */
export function measureBandwidth(segments: readonly { sizeBytes: number; durationSeconds: number }[]): Bandwidth {
  const timed = segments.filter((segment) => segment.durationSeconds > 0);
  const bits = timed.reduce((sum, segment) => sum + segment.sizeBytes * 8, 0);
  const duration = timed.reduce((sum, segment) => sum + segment.durationSeconds, 0);
  const average = duration > 0 ? bits / duration : 0;
  const target = hlsTargetDuration(timed);
  let peak = 0;
  for (let first = 0; first < timed.length; first += 1) {
    let runBits = 0;
    let runSeconds = 0;
    for (let last = first; last < timed.length; last += 1) {
      runBits += timed[last]!.sizeBytes * 8;
      runSeconds += timed[last]!.durationSeconds;
      if (runSeconds > target * 1.5) break;
      if (runSeconds >= target * 0.5) peak = Math.max(peak, runBits / runSeconds);
    }
  }
  return {
    peakBitsPerSecond: Math.ceil(peak || average),
    averageBitsPerSecond: Math.ceil(average),
    durationSeconds: duration,
  };
}

export interface PlaylistSegment {
  name: string;
  durationSeconds: number;
}

/**
 * A rendition's media playlist (VOD, fMP4) from its segments in order: what ffmpeg writes for a
 * whole-file encode, for the segments of every chunk (the orchestrator) and of a clip (the API).
 * One init segment serves them all.
 */
export function renderMediaPlaylist(
  segments: readonly PlaylistSegment[],
  /** Set: the bootstrap playlist, the first segment listed as these (hlsBootstrapName's names). */
  bootstrap?: readonly PlaylistSegment[],
): string {
  if (segments.length === 0) throw new Error('a media playlist needs at least one segment');
  segments.forEach((segment, index) => {
    if (segment.name !== hlsSegmentName(index))
      throw new Error(`segment ${index} is ${segment.name}: the segments do not run on`);
  });
  bootstrap?.forEach((segment, index) => {
    if (segment.name !== hlsBootstrapName(index))
      throw new Error(`bootstrap segment ${index} is ${segment.name}: the segments do not run on`);
  });
  // Kept at the 6 s segments' target: the bootstrap segments are shorter.
  const target = hlsTargetDuration(segments);
  const lines = [
    '#EXTM3U',
    '#EXT-X-VERSION:7',
    `#EXT-X-TARGETDURATION:${target}`,
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-PLAYLIST-TYPE:VOD',
    '#EXT-X-INDEPENDENT-SEGMENTS',
    `#EXT-X-MAP:URI="${hlsInitName}"`,
  ];
  const listed = bootstrap ? [...bootstrap, ...segments.slice(1)] : segments;
  for (const segment of listed) lines.push(`#EXTINF:${segment.durationSeconds.toFixed(6)},`, segment.name);
  lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

/**
 * A media playlist with its init and segment URIs replaced by `urlOf(uri)` (absolute URLs, e.g.
 * presigned GETs): a rendition in storage made readable by ffmpeg from one URL, as its relative
 * names cannot be resolved against a presigned playlist URL. Every other line is kept.
 */
export function withAbsoluteUris(playlist: string, urlOf: (uri: string) => string): string {
  return playlist
    .split('\n')
    .map((line) => {
      if (line.startsWith('#EXT-X-MAP:'))
        return line.replace(/URI="([^"]+)"/, (_, uri: string) => `URI="${urlOf(uri)}"`);
      return line === '' || line.startsWith('#') ? line : urlOf(line.trim());
    })
    .join('\n');
}
