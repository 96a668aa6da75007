// Where a <kino-player> finds its files (docs/decisions/player.md#attributes): the master playlist,
// the storyboard beside it and the poster, from either a playlist URL (`src`) or a video id
// (`playback-id`, with `token` for a private video and `delivery-url` for another host than the page's).

export interface PlayerAttributes {
  src: string | null;
  playbackId: string | null;
  token: string | null;
  deliveryUrl: string | null;
  poster: string | null;
  storyboard: string | null;
}

export interface PlayerSources {
  /** The master playlist, asking for bootstrap segments (issue 55) and carrying the token. */
  master: string;
  /** The storyboard's WebVTT: the attribute's, else the one beside the master (same family, same token); null for `storyboard=""`. */
  storyboard: string | null;
  /** The poster, when one is known: the attribute's (none for `poster=""`), or the video's default thumbnail. */
  poster: string | null;
}

/** The poster's size when only the video id is known: 16:9, sharp on a 1280 px wide player. */
export const defaultPosterSize = { width: 1280, height: 720 } as const;

function withQuery(url: string, name: string, value: string): string {
  const [path, hash] = url.split('#', 2) as [string, string | undefined];
  if (new RegExp(`[?&]${name}=`).test(path)) return url;
  const joined = `${path}${path.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(value)}`;
  return hash === undefined ? joined : `${joined}#${hash}`;
}

/** `name` in the same folder as the playlist `url`, with its query (the token travels along). */
export function siblingOf(url: string, name: string): string {
  const [path, query] = url.split('#', 1)[0]!.split('?', 2) as [string, string | undefined];
  const folder = path.slice(0, path.lastIndexOf('/') + 1);
  const rest = (query ?? '')
    .split('&')
    .filter((pair) => pair && !pair.startsWith('bootstrap='))
    .join('&');
  return `${folder}${name}${rest ? `?${rest}` : ''}`;
}

/** The files to play, or null when neither `src` nor `playback-id` is set. */
export function sourcesOf(attributes: PlayerAttributes): PlayerSources | null {
  const { playbackId, token } = attributes;
  const base = (attributes.deliveryUrl ?? '').replace(/\/+$/, '');
  const id = playbackId ? encodeURIComponent(playbackId) : null;
  let master: string;
  if (attributes.src) master = token ? withQuery(attributes.src, 'token', token) : attributes.src;
  else if (id)
    master = token ? withQuery(`${base}/v1/private/${id}/master.m3u8`, 'token', token) : `${base}/${id}/master.m3u8`;
  else return null;
  const thumbnail = id
    ? `${base}/t/${id}/${defaultPosterSize.width}x${defaultPosterSize.height}.jpg${token ? `?token=${encodeURIComponent(token)}` : ''}`
    : null;
  return {
    master: withQuery(master, 'bootstrap', 'true'),
    storyboard: attributes.storyboard === null ? siblingOf(master, 'storyboard.vtt') : attributes.storyboard || null,
    poster: attributes.poster === null ? thumbnail : attributes.poster || null,
  };
}
