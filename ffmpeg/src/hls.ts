// Reading back a rendition playlist ffmpeg wrote, and measuring it for the master playlist.
import { hlsInitName, hlsPlaylistName, hlsSegmentName, hlsSegmentSeconds } from '@kino/proto/contract';

export interface MediaPlaylist {
  targetDuration: number;
  mapUri?: string;
  segments: { uri: string; durationSeconds: number; programDateTime?: string }[];
  endList: boolean;
}

export function parseMediaPlaylist(text: string): MediaPlaylist {
  const playlist: MediaPlaylist = { targetDuration: 0, segments: [], endList: false };
  let pendingDuration: number | undefined;
  let pendingTime: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    if (line.startsWith('#EXT-X-TARGETDURATION:')) {
      playlist.targetDuration = Number(line.slice('#EXT-X-TARGETDURATION:'.length));
    } else if (line.startsWith('#EXT-X-MAP:')) {
      playlist.mapUri = /URI="([^"]*)"/.exec(line)?.[1];
    } else if (line.startsWith('#EXTINF:')) {
      pendingDuration = Number.parseFloat(line.slice('#EXTINF:'.length));
    } else if (line.startsWith('#EXT-X-PROGRAM-DATE-TIME:')) {
      pendingTime = line.slice('#EXT-X-PROGRAM-DATE-TIME:'.length);
    } else if (line === '#EXT-X-ENDLIST') {
      playlist.endList = true;
    } else if (!line.startsWith('#') && pendingDuration !== undefined) {
      playlist.segments.push({
        uri: line,
        durationSeconds: pendingDuration,
        ...(pendingTime === undefined ? {} : { programDateTime: pendingTime }),
      });
      pendingDuration = undefined;
      pendingTime = undefined;
    }
  }
  return playlist;
}

/**
 * The file names an encode of `durationSeconds` can produce: the playlist, the init segment and
 * one segment per started `segmentSeconds`, plus one spare (audio can run a little past the video).
 * The orchestrator presigns a PUT for each; unused ones simply expire.
 */
export function hlsOutputFileNames(durationSeconds: number, segmentSeconds = hlsSegmentSeconds): string[] {
  const segments = Math.max(1, Math.ceil(durationSeconds / segmentSeconds)) + 1;
  const names = [hlsPlaylistName, hlsInitName];
  for (let i = 0; i < segments; i++) names.push(hlsSegmentName(i));
  return names;
}
