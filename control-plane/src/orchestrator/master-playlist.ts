// The HLS master (multivariant) playlist of a video: one EXT-X-STREAM-INF per rendition, variant
// URIs relative to the master (`720p/playlist.m3u8`) so the same file plays from any host path.
import { hlsPlaylistName } from '@kino/proto/contract';

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
}

export function renderMasterPlaylist(variants: readonly MasterVariant[]): string {
  if (variants.length === 0) throw new Error('a master playlist needs at least one variant');
  const lines = ['#EXTM3U', '#EXT-X-VERSION:7', '#EXT-X-INDEPENDENT-SEGMENTS'];
  // Lowest first: players that start with the first listed variant start fast.
  for (const v of [...variants].sort((a, b) => a.bandwidth - b.bandwidth)) {
    // An audio-only variant (no picture: width, height and frame rate 0) has no RESOLUTION or FRAME-RATE.
    const picture = v.width > 0 && v.height > 0;
    const attributes = [
      `BANDWIDTH=${Math.round(v.bandwidth)}`,
      `AVERAGE-BANDWIDTH=${Math.round(Math.min(v.averageBandwidth, v.bandwidth))}`,
      ...(picture ? [`RESOLUTION=${v.width}x${v.height}`] : []),
      `CODECS="${v.codecs}"`,
      ...(picture && v.frameRate > 0 ? [`FRAME-RATE=${v.frameRate.toFixed(3)}`] : []),
    ];
    lines.push(`#EXT-X-STREAM-INF:${attributes.join(',')}`, `${v.key}/${hlsPlaylistName}`);
  }
  return `${lines.join('\n')}\n`;
}
