// URLs of a video's pictures on the delivery host, made from its master playlist URL (a public
// video's, or a private one's signed URL: its token carries over), with no call to the API.
// Delivery's paths: `/t/{id}/<w>x<h>.<format>?time=` for a frame of any moment (or the default
// thumbnail), `animated.webp|gif?start=&end=&width=&fps=` beside the master for an animated preview.

export interface PictureUrlOptions {
  /** 16 to 3840 pixels each; the picture is cropped to fill the box. */
  width: number;
  height: number;
  /** Seconds from the start, to the millisecond; absent: the video's default thumbnail. */
  time?: number;
  /** Default `jpg`. */
  format?: 'jpg' | 'png' | 'webp';
}

export interface AnimatedPreviewUrlOptions {
  /** Default `webp`. */
  format?: 'webp' | 'gif';
  /** Seconds; at most 10 apart. Delivery's defaults: 0 and 5 (or the video's end). */
  start?: number;
  end?: number;
  /** 16 to 640 pixels (default 320); the height follows the picture. */
  width?: number;
  /** 1 to 30 (default 15). */
  fps?: number;
}

function masterOf(masterUrl: string): { url: URL; videoId: string } {
  const url = new URL(masterUrl);
  const parts = url.pathname.split('/');
  if (parts.at(-1) !== 'master.m3u8' || parts.length < 3)
    throw new TypeError(`not a master playlist URL of a video: ${masterUrl}`);
  return { url, videoId: decodeURIComponent(parts.at(-2)!) };
}

function withToken(target: URL, from: URL): string {
  const token = from.searchParams.get('token');
  if (token) target.searchParams.set('token', token);
  return target.href;
}

/**
 * A picture of the video: the frame at `time`, or its default thumbnail.
 * @example
 * const { signed_url } = await kino.playback.signedUrl(orgId, videoId);
 * const poster = pictureUrl(signed_url, { width: 640, height: 360, time: 12.5, format: 'webp' });
 */
export function pictureUrl(masterUrl: string, { width, height, time, format = 'jpg' }: PictureUrlOptions): string {
  const { url, videoId } = masterOf(masterUrl);
  const picture = new URL(`/t/${encodeURIComponent(videoId)}/${width}x${height}.${format}`, url.origin);
  if (time !== undefined) picture.searchParams.set('time', String(time));
  return withToken(picture, url);
}

/**
 * A looping animated preview of a stretch of the video, in the master playlist's family.
 * @example
 * const preview = animatedPreviewUrl(publicMasterUrl, { start: 10, end: 14, width: 480, format: 'gif' });
 */
export function animatedPreviewUrl(masterUrl: string, options: AnimatedPreviewUrlOptions = {}): string {
  const { url } = masterOf(masterUrl);
  const { format = 'webp', ...stretch } = options;
  const preview = new URL(url.href.replace(/master\.m3u8(\?.*)?$/, `animated.${format}`));
  for (const [name, value] of Object.entries(stretch))
    if (value !== undefined) preview.searchParams.set(name, String(value));
  return withToken(preview, url);
}
