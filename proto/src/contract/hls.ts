// HLS as Kino writes it (fMP4/CMAF, one directory per rendition) and serves it: the file names and
// the Content-Type each is stored and served with. The orchestrator presigns uploads bound to these
// types, nodes upload with them, delivery serves with them.

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
  /** Highest bit rate of any one segment: the master playlist's BANDWIDTH. */
  peakBitsPerSecond: number;
  /** All segment bits over all segment time: AVERAGE-BANDWIDTH. */
  averageBitsPerSecond: number;
  durationSeconds: number;
}

/**
 * Measures segment bit rates from sizes and EXTINF durations. The init segment is left out: a
 * player loads it once per rendition, not per segment.
 */
export function measureBandwidth(segments: { sizeBytes: number; durationSeconds: number }[]): Bandwidth {
  let peak = 0;
  let bits = 0;
  let duration = 0;
  for (const segment of segments) {
    if (segment.durationSeconds <= 0) continue;
    const segmentBits = segment.sizeBytes * 8;
    peak = Math.max(peak, segmentBits / segment.durationSeconds);
    bits += segmentBits;
    duration += segment.durationSeconds;
  }
  return {
    peakBitsPerSecond: Math.ceil(peak),
    averageBitsPerSecond: duration > 0 ? Math.ceil(bits / duration) : 0,
    durationSeconds: duration,
  };
}
