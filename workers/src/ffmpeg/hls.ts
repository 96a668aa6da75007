// Reading back a rendition playlist ffmpeg wrote, and measuring it for the master playlist.
import { hlsInitName, hlsPlaylistName, hlsSegmentName } from '@kino/proto/contract';

export interface MediaPlaylist {
  targetDuration: number;
  mapUri?: string;
  segments: { uri: string; durationSeconds: number }[];
  endList: boolean;
}

export function parseMediaPlaylist(text: string): MediaPlaylist {
  const playlist: MediaPlaylist = { targetDuration: 0, segments: [], endList: false };
  let pendingDuration: number | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    if (line.startsWith('#EXT-X-TARGETDURATION:')) {
      playlist.targetDuration = Number(line.slice('#EXT-X-TARGETDURATION:'.length));
    } else if (line.startsWith('#EXT-X-MAP:')) {
      playlist.mapUri = /URI="([^"]*)"/.exec(line)?.[1];
    } else if (line.startsWith('#EXTINF:')) {
      pendingDuration = Number.parseFloat(line.slice('#EXTINF:'.length));
    } else if (line === '#EXT-X-ENDLIST') {
      playlist.endList = true;
    } else if (!line.startsWith('#') && pendingDuration !== undefined) {
      playlist.segments.push({ uri: line, durationSeconds: pendingDuration });
      pendingDuration = undefined;
    }
  }
  return playlist;
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

/**
 * The file names an encode of `durationSeconds` can produce: the playlist, the init segment and
 * one segment per started `segmentSeconds`, plus one spare (audio can run a little past the video).
 * The orchestrator presigns a PUT for each; unused ones simply expire.
 */
export function hlsOutputFileNames(durationSeconds: number, segmentSeconds = 6): string[] {
  const segments = Math.max(1, Math.ceil(durationSeconds / segmentSeconds)) + 1;
  const names = [hlsPlaylistName, hlsInitName];
  for (let i = 0; i < segments; i++) names.push(hlsSegmentName(i));
  return names;
}
