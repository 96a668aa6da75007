// `/oembed?url=`: oEmbed 1.0 JSON for an embed or share URL of this host (oembed.ts in the package
// parses the URL and sizes the frame).
import type { IncomingMessage } from 'node:http';
import { deliveryPaths, embedPaths, shareLinkPaths } from '@kino/proto/contract';
import { DeliveryError, videoNotFound } from '../errors.ts';
import { embedSize, iframeHtml, parseEmbeddableUrl, parseMaxSize, type OembedVideo } from '../oembed.ts';
import { THUMBNAIL_MAX_EDGE, THUMBNAIL_MIN_EDGE } from '../paths.ts';
import { sendJson } from '../responses.ts';
import type { PlayableVideo } from '../video-catalog.ts';
import { header, originOf, viewerOf, type RouteDeps, type RouteHandler } from './context.ts';

export const serveOembed: RouteHandler<'oembed'> = async (deps, { req, res, params }) => {
  sendJson(req, res, 200, await oembedOf(deps, req, params));
};

export async function oembedOf(
  deps: Pick<RouteDeps, 'catalog' | 'tokens' | 'shareLinks'>,
  req: IncomingMessage,
  params: URLSearchParams,
): Promise<OembedVideo> {
  const format = params.get('format');
  if (format !== null && format !== 'json') {
    throw new DeliveryError(501, 'format_not_implemented', `oEmbed answers in json only, not ${format}.`);
  }
  const max = parseMaxSize(params);
  const target = parseEmbeddableUrl(params.get('url'), header(req, 'host'));
  const origin = originOf(req);
  let video: PlayableVideo | undefined;
  let src: string;
  /** What opens the thumbnail: nothing for a public video; the token for a private embed; none for a private share link. */
  let thumbnailAccess: string | null = '';
  if (target.kind === 'embed') {
    video = await deps.catalog.get(target.videoId);
    if (!video) throw videoNotFound(target.videoId);
    src = `${origin}${embedPaths.page(video.id)}`;
    if (!video.allowPublicAccess) {
      await deps.tokens.authorize(target.token, video.id, viewerOf(req));
      const query = `?token=${encodeURIComponent(target.token!)}`;
      src += query;
      thumbnailAccess = query;
    }
  } else {
    video = await deps.catalog.get(await deps.shareLinks.open(target.linkId, { countView: false }));
    if (!video)
      throw new DeliveryError(404, 'video_not_found', 'The video of this share link was deleted or is not playable.');
    src = `${origin}${shareLinkPaths.page(target.linkId)}`;
    if (!video.allowPublicAccess) thumbnailAccess = null;
  }
  const size = embedSize(video.width && video.height ? { width: video.width, height: video.height } : null, max);
  const thumbnail = embedSize(size, { maxwidth: THUMBNAIL_MAX_EDGE, maxheight: THUMBNAIL_MAX_EDGE });
  const hasThumbnail =
    video.thumbnailKey !== null &&
    thumbnailAccess !== null &&
    Math.min(thumbnail.width, thumbnail.height) >= THUMBNAIL_MIN_EDGE;
  return {
    version: '1.0',
    type: 'video',
    provider_name: 'Kino',
    title: video.name,
    width: size.width,
    height: size.height,
    html: iframeHtml(src, video.name, size),
    ...(hasThumbnail
      ? {
          thumbnail_url: `${origin}${deliveryPaths.thumbnail(video.id, thumbnail.width, thumbnail.height)}${thumbnailAccess}`,
          thumbnail_width: thumbnail.width,
          thumbnail_height: thumbnail.height,
        }
      : {}),
  };
}
