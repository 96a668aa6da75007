// The delivery node's routes: every kind of path parseDeliveryPath knows, and the one handler that
// answers it. createDeliveryServer looks the handler up here; nothing else dispatches on a route's kind.
import type { DeliveryRoute } from '../paths.ts';
import { sendJson } from '../responses.ts';
import { checkPlaybackParams, type Exchange, type RouteDeps, type RouteHandler, type RouteOf } from './context.ts';
import { animatedParamNames } from './animated.ts';
import { receiveBeacons } from './beacons.ts';
import { serveEmbedPage, servePlayerAsset } from './embed.ts';
import { serveOembed } from './oembed.ts';
import { servePlayback } from './playback.ts';
import { serveShared, serveSharePage } from './share.ts';
import { pictureParamNames, refuseThumbnailSize, serveThumbnail } from './thumbnails.ts';

type RouteHandlers = { [K in DeliveryRoute['kind']]: RouteHandler<K> };

/**
 * `serve` behind the check of its query: a route that serves a video's files takes the playback
 * parameters (playback-params.ts) and its own (`routeParams`, whose values it checks), refused
 * before anything else is read (its token among them).
 */
function checkingPlaybackParams<K extends DeliveryRoute['kind']>(
  serve: RouteHandler<K>,
  routeParams: (route: RouteOf<K>) => readonly string[] = filesParams,
): RouteHandler<K> {
  return async (deps, exchange, route) => {
    checkPlaybackParams(exchange.params, routeParams(route));
    await serve(deps, exchange, route);
  };
}

/** A file's own parameters besides the playback ones: an animated preview's. */
function filesParams(route: DeliveryRoute): readonly string[] {
  return 'resource' in route && route.resource.type === 'animated' ? animatedParamNames : [];
}

export const routeHandlers: RouteHandlers = {
  playback: checkingPlaybackParams(servePlayback),
  share: checkingPlaybackParams(serveShared),
  share_page: serveSharePage,
  embed_page: serveEmbedPage,
  player_asset: servePlayerAsset,
  oembed: serveOembed,
  thumbnail: checkingPlaybackParams(serveThumbnail, () => pictureParamNames),
  invalid_thumbnail_size: refuseThumbnailSize,
  health: async (_deps, { req, res }) => sendJson(req, res, 200, { status: 'ok' }),
  beacons: receiveBeacons,
};

/** Answers a route with its kind's handler. */
export function answerRoute(deps: RouteDeps, exchange: Exchange, route: DeliveryRoute): Promise<void> {
  // The table is keyed by kind, so the handler it gives takes this route.
  const handler = routeHandlers[route.kind] as RouteHandler<DeliveryRoute['kind']>;
  return handler(deps, exchange, route);
}
