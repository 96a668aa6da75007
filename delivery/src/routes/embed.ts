// The embed page, `/embed/{videoId}`: the player for an iframe (player-page.ts), and the player's
// own files, which the embed and share watch pages load from this host.
import { deliveryPaths, embedPaths, storyboardVttName } from '@kino/proto/contract';
import { DeliveryError } from '../errors.ts';
import { contentEtag } from '../object-cache.ts';
import { embedSize } from '../oembed.ts';
import { THUMBNAIL_MIN_EDGE } from '../paths.ts';
import { messagePage, playerAsset, playerPage } from '../player-page.ts';
import { cacheControl, pageBody, sendBody } from '../responses.ts';
import { oembedUrl, originOf, viewerOf, type RouteHandler } from './context.ts';

const posterMaxEdge = 1280;

/**
 * The player page, or a page saying why it cannot play (a deleted or unready video: 404; a private
 * one without a valid token: the token's 401 or 403), in the iframe's frame.
 */
export const serveEmbedPage: RouteHandler<'embed_page'> = async (deps, { req, res, params }, route) => {
  const video = await deps.catalog.get(route.videoId);
  if (!video) {
    await sendBody(
      deps.recordSegment,
      req,
      res,
      {
        ...pageBody(messagePage('Video not found', 'This video does not exist, was deleted or is not ready yet.')),
        cacheControl: 'no-store',
      },
      404,
    );
    return;
  }
  const token = video.allowPublicAccess ? null : params.get('token');
  if (!video.allowPublicAccess) {
    try {
      await deps.tokens.authorize(token, video.id, viewerOf(req));
    } catch (error) {
      if (!(error instanceof DeliveryError) || error.status >= 500) throw error;
      await sendBody(
        deps.recordSegment,
        req,
        res,
        { ...pageBody(messagePage('Private video', error.detail)), cacheControl: 'no-store' },
        error.status,
      );
      return;
    }
  }
  const file = (name: string) =>
    token
      ? `${deliveryPaths.privateFile(video.id, name)}?token=${encodeURIComponent(token)}`
      : deliveryPaths.publicFile(video.orgId, video.envId, video.id, name);
  const origin = originOf(req);
  // The poster is the default thumbnail at the source's aspect, at most the player's 1280 px.
  const posterSize = embedSize(video.width && video.height ? { width: video.width, height: video.height } : null, {
    maxwidth: posterMaxEdge,
    maxheight: posterMaxEdge,
  });
  const hasPoster = video.thumbnailKey !== null && Math.min(posterSize.width, posterSize.height) >= THUMBNAIL_MIN_EDGE;
  const page = playerPage({
    title: video.name,
    // The player asks for 2 s bootstrap segments itself, where the video has them (issue 55).
    src: file('master.m3u8'),
    ...(hasPoster
      ? {
          poster: `${deliveryPaths.thumbnail(video.id, posterSize.width, posterSize.height)}${token ? `?token=${encodeURIComponent(token)}` : ''}`,
        }
      : {}),
    ...(video.storyboardKey ? { storyboard: file(storyboardVttName) } : {}),
    oembed: oembedUrl(origin, `${origin}${req.url ?? embedPaths.page(video.id)}`),
  });
  // Short-lived like playlists: a renamed, deleted or privatised video changes the page.
  await sendBody(deps.recordSegment, req, res, {
    ...pageBody(page),
    cacheControl: cacheControl.playlist[token ? 'private' : 'public'],
  });
};

/** A file of the player (its bundle), by its path. */
export const servePlayerAsset: RouteHandler<'player_asset'> = async (deps, { req, res }, route) => {
  const data = (await playerAsset(route.path))!;
  await sendBody(deps.recordSegment, req, res, {
    data,
    etag: contentEtag(data),
    size: data.length,
    contentType: 'text/javascript; charset=utf-8',
    cacheControl: 'public, max-age=86400',
  });
};
