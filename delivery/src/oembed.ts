// oEmbed 1.0 (https://oembed.com) for the delivery host's own pages (docs/decisions/delivery.md#embeds):
// `/oembed?url=` takes an embed URL (`/embed/{videoId}`, with `?token=` for a private video) or a
// share link's watch page (`/v1/share/{linkId}`) of this host, and answers a `video` whose `html`
// is an iframe of that page. The parsing and the sizing are here; routes/oembed.ts looks the video up.
import { DeliveryError } from './errors.ts';

export type EmbeddableUrl =
  { kind: 'embed'; videoId: string; token: string | null } | { kind: 'share'; linkId: string };

const embedPath = /^\/embed\/([A-Za-z0-9_-]{1,64})\/?$/;
const sharePath = /^\/v1\/share\/([A-Za-z0-9_-]{1,64})\/?$/;

/**
 * What an oEmbed `url` names. 400 when it is not an http(s) URL; 404 when it is one of another host
 * (`host`: the oEmbed request's Host) or a path that is no embed or watch page.
 */
export function parseEmbeddableUrl(raw: string | null, host: string | undefined): EmbeddableUrl {
  let url: URL;
  try {
    url = new URL(raw ?? '');
  } catch {
    throw new DeliveryError(
      400,
      'invalid_url',
      'The `url` query parameter must be an absolute embed or share URL of this host.',
      [{ message: 'must be an absolute http(s) URL', location: 'query.url', value: raw ?? '' }],
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DeliveryError(400, 'invalid_url', 'The `url` query parameter must be an http(s) URL.', [
      { message: 'must be an absolute http(s) URL', location: 'query.url', value: raw ?? '' },
    ]);
  }
  const notHere = new DeliveryError(404, 'not_found', `${url.href} is not an embed or share URL of this host.`);
  if (!host || url.host !== host.toLowerCase()) throw notHere;
  let match: RegExpExecArray | null;
  if ((match = embedPath.exec(url.pathname)))
    return { kind: 'embed', videoId: match[1]!, token: url.searchParams.get('token') };
  if ((match = sharePath.exec(url.pathname))) return { kind: 'share', linkId: match[1]! };
  throw notHere;
}

export interface Size {
  width: number;
  height: number;
}

/** The size when the source's is unknown (an audio-only video has none): 16:9 at 640 wide. */
export const defaultEmbedSize: Size = { width: 640, height: 360 };

/**
 * The iframe's size: the video's own (or the default), scaled down, aspect kept, to fit
 * maxwidth and maxheight (oEmbed: "must not exceed"); never scaled up.
 */
export function embedSize(natural: Size | null, max: { maxwidth?: number; maxheight?: number }): Size {
  const base = natural && natural.width > 0 && natural.height > 0 ? natural : defaultEmbedSize;
  const scale = Math.min(
    1,
    max.maxwidth ? max.maxwidth / base.width : 1,
    max.maxheight ? max.maxheight / base.height : 1,
  );
  // Rounded, then held to the bounds: the bound side is exactly the bound (854 × 480/854 is 479.99...).
  const fit = (length: number, bound: number | undefined) =>
    Math.max(1, Math.min(Math.round(length * scale), bound ?? Infinity));
  return { width: fit(base.width, max.maxwidth), height: fit(base.height, max.maxheight) };
}

/** maxwidth / maxheight: positive integers when present. */
export function parseMaxSize(params: URLSearchParams): { maxwidth?: number; maxheight?: number } {
  const out: { maxwidth?: number; maxheight?: number } = {};
  for (const name of ['maxwidth', 'maxheight'] as const) {
    const raw = params.get(name);
    if (raw === null || raw === '') continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1 || value > 100_000) {
      throw new DeliveryError(400, 'invalid_oembed_parameters', `${name} must be a positive whole number of pixels.`, [
        { message: 'must be a positive integer', location: `query.${name}`, value: raw },
      ]);
    }
    out[name] = value;
  }
  return out;
}

export interface OembedVideo {
  version: '1.0';
  type: 'video';
  provider_name: 'Kino';
  title: string;
  width: number;
  height: number;
  html: string;
  thumbnail_url?: string;
  thumbnail_width?: number;
  thumbnail_height?: number;
}

/** The iframe's HTML: the page at `src`, fullscreen and autoplay allowed. */
export function iframeHtml(src: string, title: string, size: Size): string {
  const attr = (text: string) =>
    text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return (
    `<iframe src="${attr(src)}" width="${size.width}" height="${size.height}" title="${attr(title)}" ` +
    `style="border:0" allow="autoplay; fullscreen; picture-in-picture; encrypted-media" allowfullscreen></iframe>`
  );
}
