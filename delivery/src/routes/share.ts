// Share links (share-links.ts in the package): `/v1/share/{linkId}/...` serves the `/v1` family's
// files of the link's video with no token (the link is the credential), and `/v1/share/{linkId}`
// is its watch page.
import { shareLinkPaths } from '@kino/proto/contract';
import { isCaptionResource } from '../captions.ts';
import { DeliveryError } from '../errors.ts';
import { pageBody, sendBody, type Access } from '../responses.ts';
import { watchPage } from '../share-links.ts';
import { captionBody } from './captions.ts';
import { currentVideo, oembedUrl, originOf, type RouteHandler } from './context.ts';
import { animatedBody } from './animated.ts';
import { hlsBody } from './playback.ts';

/** A file of a share link's video. */
export const serveShared: RouteHandler<'share'> = async (deps, { req, res, params }, route) => {
  const { resource } = route;
  const isMaster = resource.type === 'master';
  // The video is checked before a view is counted, so a link of a deleted video spends nothing.
  const videoId = await deps.shareLinks.open(route.linkId, { countView: false });
  const video = await currentVideo(deps, videoId, resource);
  if (!video)
    throw new DeliveryError(404, 'video_not_found', 'The video of this share link was deleted or is not playable.');
  if (isMaster) await deps.shareLinks.open(route.linkId, { countView: true });
  const access: Access = video.allowPublicAccess ? 'public' : 'private';
  const file = { video, family: 'share' as const, access, token: null, res, params };
  const body = isCaptionResource(resource)
    ? await captionBody(deps, { ...file, resource })
    : resource.type === 'animated'
      ? await animatedBody(deps, { ...file, resource })
      : await hlsBody(deps, { ...file, resource });
  // Each master load is a counted view: no cache may answer one in delivery's place.
  await sendBody(deps.recordSegment, req, res, isMaster ? { ...body, cacheControl: 'no-store' } : body);
};

/** The watch page of a share link: the player on its master playlist. */
export const serveSharePage: RouteHandler<'share_page'> = async (deps, { req, res }, route) => {
  const origin = originOf(req);
  const data = watchPage(route.linkId, oembedUrl(origin, `${origin}${shareLinkPaths.page(route.linkId)}`));
  await sendBody(deps.recordSegment, req, res, { ...pageBody(data), cacheControl: 'public, max-age=3600' });
};
