// The URLs the delivery host answers, as the control plane hands them out (signed playback URLs,
// `thumbnailUrl`, `storyboardUrl`, share links). Delivery parses the same shapes (delivery/src/paths.ts).
// Paths only: callers put the delivery host's origin in front.
import { additionalVideoCodecs } from './encoding.ts';

const id = (value: string) => encodeURIComponent(value);

/**
 * A rendition key as storage and every path family name it (a RegExp source, no anchors): the H.264
 * rung's short edge (`720p`; `0p` for an audio-only video's one rendition), or that key and
 * another codec (`720p-hevc`, `720p-av1`) for a rendition in it, or `0p-a1`, `0p-a2`, ... for the
 * alternate audio renditions of a source with several audio tracks (audio alone, short edge 0), or
 * a picture rendition's key and `-v` (`720p-v`, `720p-av1-v`) for its copy without sound
 * (pictureOnlyKey).
 */
export const renditionKeyPattern = `\\d{1,5}p(?:-a\\d{1,2}|(?:-(?:${additionalVideoCodecs.join('|')}))?(?:-v)?)`;

/** The key of the alternate audio rendition of a source's audio stream `stream` (from 0): `0p-a1` for the first. */
export function alternateAudioKey(stream: number): string {
  return `0p-a${stream + 1}`;
}

/** The most alternate audio renditions a video can have: the key pattern's two digits. */
export const maxAlternateAudioRenditions = 99;

/** Whether a rendition key is an alternate audio rendition's (alternateAudioKey). */
export function isAlternateAudioKey(key: string): boolean {
  return /^0p-a\d{1,2}$/.test(key);
}

/**
 * The key of a picture rendition's copy without its sound (`720p` → `720p-v`): made when a track is
 * added to a video whose sound was muxed in its pictures, which then plays its sound as an
 * alternate rendition (docs/decisions/encoding.md#audio). The original stays for viewers playing it.
 */
export function pictureOnlyKey(key: string): string {
  return `${key}-v`;
}

/** Whether a rendition key is a picture rendition's copy without sound (pictureOnlyKey). */
export function isPictureOnlyKey(key: string): boolean {
  return key.endsWith('-v');
}

/** The audio download's name at the base of every path family (`/{id}/audio.m4a`, `.../audio.m4a`). */
export const audioDownloadName = 'audio.m4a';

/**
 * A rendition's MP4 download in the /v1 families (`video-720p.mp4`; `720p.mp4` in direct). H.264
 * renditions only: those play everywhere a downloaded file is opened.
 */
export const mp4DownloadName = (quality: string) => `video-${quality}.mp4`;

export const deliveryPaths = {
  /** A file of a public video (`master.m3u8`, `storyboard.vtt`, ...); the org and env must be the video's. */
  publicFile: (orgId: string, envId: string, videoId: string, name: string) =>
    `/v1/public/${id(orgId)}/${id(envId)}/${id(videoId)}/${name}`,
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
};

/**
 * Embeds (docs/decisions/delivery.md#embeds): a player page for an iframe, `?token=` for a private
 * video, and the oEmbed endpoint that answers the iframe's HTML for an embed or share URL.
 */
export const embedPaths = {
  page: (videoId: string) => `/embed/${id(videoId)}`,
  oembed: '/oembed',
};

/**
 * The player's files, served by delivery itself (no CDN) to the watch and embed pages: `@kino/player`'s
 * bundle, the <kino-player> element with hls.js in it (docs/decisions/player.md).
 */
export const playerAssetPaths = {
  player: '/v1/assets/kino-player.js',
};

/** What says where a video's files are: its ids, and a playback token when it is private. */
export interface VideoLocation {
  videoId: string;
  orgId: string;
  envId: string;
  /** A playback token (the `token` of a signed URL) for a private video; null for a public one. */
  token: string | null;
}

/**
 * The URLs to hand a person for a video on the delivery host (the dashboard's video page, the CLI's
 * upload summary): a file of its path family (`master.m3u8`, `video-720p.mp4`) and its embed page.
 * A public video's are the public paths and never expire; a private video's carry the token.
 */
export function videoDeliveryUrls(
  deliveryUrl: string,
  video: VideoLocation,
): { file(name: string): string; embed: string } {
  const base = deliveryUrl.replace(/\/+$/, '');
  const query = video.token === null ? '' : `?token=${encodeURIComponent(video.token)}`;
  return {
    file: (name) =>
      video.token === null
        ? `${base}${deliveryPaths.publicFile(video.orgId, video.envId, video.videoId, name)}`
        : `${base}${deliveryPaths.privateFile(video.videoId, name)}${query}`,
    embed: `${base}${embedPaths.page(video.videoId)}${query}`,
  };
}
