// Share links on the delivery host: the API hands these URLs out, delivery answers them. The link id
// in the path is the whole credential, so every relative URI of a playlist served under it (the
// `/v1` family's names: video-720p.m3u8, video-720p/seg-00000.m4s) carries it without a query.
export const shareLinkPaths = {
  /** The watch page (a small player) used as `shareUrl` when no WEB_APP_URL is configured. */
  page: (linkId: string) => `/v1/share/${linkId}`,
  /** The master playlist: `directUrl`; each load counts one view. */
  master: (linkId: string) => `/v1/share/${linkId}/master.m3u8`,
  /** hls.js, served by delivery itself for the watch page (no CDN). */
  playerScript: '/v1/assets/hls.min.js',
};

/** Limits of `POST /{orgID}/videos/{publicID}/share` (docs/decisions.md#share-links). */
export const shareLinkLimits = {
  defaultExpirationHours: 168,
  maxExpirationHours: 8760,
  maxViews: 1_000_000,
};
