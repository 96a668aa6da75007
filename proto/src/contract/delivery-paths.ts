// The URLs the delivery host answers, as the control plane hands them out (signed playback URLs,
// `thumbnailUrl`, `storyboardUrl`, share links). Delivery parses the same shapes (delivery/src/paths.ts).
// Paths only: callers put the delivery host's origin in front.
const id = (value: string) => encodeURIComponent(value);

/** The audio download's name at the base of every path family (`/{id}/audio.m4a`, `.../audio.m4a`). */
export const audioDownloadName = 'audio.m4a';

export const deliveryPaths = {
  /** A file of a public video (`master.m3u8`, `storyboard.vtt`, ...); the org and env must be the video's. */
  publicFile: (orgId: string, envId: string, videoId: string, name: string) => `/v1/public/${id(orgId)}/${id(envId)}/${id(videoId)}/${name}`,
  /** A file of any video behind a playback token (`?token=JWT`, appended by the caller). */
  privateFile: (videoId: string, name: string) => `/v1/private/${id(videoId)}/${name}`,
  /** A thumbnail of exactly width × height pixels. */
  thumbnail: (videoId: string, width: number, height: number) => `/t/${id(videoId)}/${width}x${height}.jpg`,
};

/**
 * Share links. The link id in the path is the whole credential, so every relative URI of a playlist
 * served under it (the `/v1` family's names: video-720p.m3u8, video-720p/seg-00000.m4s) carries it
 * without a query.
 */
export const shareLinkPaths = {
  /** The watch page (a small player) used as `shareUrl` when no WEB_APP_URL is configured. */
  page: (linkId: string) => `/v1/share/${linkId}`,
  /** The master playlist: `directUrl`; each load counts one view. */
  master: (linkId: string) => `/v1/share/${linkId}/master.m3u8`,
  /** hls.js, served by delivery itself for the watch page (no CDN). */
  playerScript: '/v1/assets/hls.min.js',
};

/**
 * Embeds (docs/decisions/delivery.md#embeds): a player page for an iframe, `?token=` for a private
 * video, and the oEmbed endpoint that answers the iframe's HTML for an embed or share URL.
 */
export const embedPaths = {
  page: (videoId: string) => `/embed/${id(videoId)}`,
  oembed: '/oembed',
};

/** The player's files, served by delivery itself (no CDN) to the watch and embed pages. */
export const playerAssetPaths = {
  hls: shareLinkPaths.playerScript,
  mediaChrome: '/v1/assets/media-chrome.js',
  player: '/v1/assets/player.js',
};
