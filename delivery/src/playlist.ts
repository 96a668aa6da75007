// Playlist rewriting: every URI of a stored playlist (variant lines, and URI="..." attributes such
// as EXT-X-MAP's init segment) is resolved against the playlist's storage key and replaced by the
// path that serves it on the delivery host, in the family the playlist was requested through,
// with the playback token appended when the request carried one.

/**
 * Rewrites the URIs of `text`, the playlist stored at `playlistKey`. `mapKey` turns the storage key
 * a URI points at into the URI to write, or undefined to leave the URI untouched (absolute URLs are
 * always left as they are).
 */
export function rewritePlaylist(
  text: string,
  playlistKey: string,
  mapKey: (key: string) => string | undefined,
): string {
  const rewrite = (uri: string): string => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(uri)) return uri;
    const key = resolveKey(playlistKey, uri);
    return (key !== undefined && mapKey(key)) || uri;
  };
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('#')) {
      if (line.includes('URI="'))
        lines[i] = line.replace(/URI="([^"]*)"/g, (_, uri: string) => `URI="${rewrite(uri)}"`);
    } else if (line.trim() !== '') {
      lines[i] = rewrite(line.trim());
    }
  }
  return lines.join('\n');
}

/** The storage key a relative URI in the playlist at `playlistKey` points at. */
export function resolveKey(playlistKey: string, uri: string): string | undefined {
  try {
    const resolved = new URL(uri, `s3://bucket/${playlistKey}`);
    if (resolved.host !== 'bucket') return undefined;
    return decodeURIComponent(resolved.pathname.slice(1));
  } catch {
    return undefined;
  }
}
