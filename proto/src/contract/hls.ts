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
