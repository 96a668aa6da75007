// Thumbnails: `/t/{videoId}/<w>x<h>.jpg` (and a custom thumbnail's), made at the asked size by
// the thumbnail maker (thumbnails.ts in the package), behind the same token rules as playback.
import { hlsContentTypes } from '@kino/proto/contract';
import { DeliveryError } from '../errors.ts';
import type { PlayableVideo } from '../video-catalog.ts';
import { cacheControl, objectBody, sendBody, type Access, type Body } from '../responses.ts';
import { openVideo, type RouteDeps, type RouteHandler, type RouteOf } from './context.ts';

export const serveThumbnail: RouteHandler<'thumbnail'> = async (deps, { req, res, params }, route) => {
  const { video, access } = await openVideo(deps, req, params, route);
  await sendBody(deps.recordSegment, req, res, await thumbnailBody(deps, video, route, access));
};

export const refuseThumbnailSize: RouteHandler<'invalid_thumbnail_size'> = async (_deps, _exchange, route) => {
  throw new DeliveryError(
    400,
    'invalid_thumbnail_size',
    `Thumbnail sizes are 16 to 3840 pixels on each edge; ${route.width}x${route.height} is not.`,
    [
      {
        message: 'width and height must each be 16 to 3840',
        location: 'path.size',
        value: `${route.width}x${route.height}`,
      },
    ],
  );
};

export async function thumbnailBody(
  deps: Pick<RouteDeps, 'thumbnails'>,
  video: PlayableVideo,
  route: RouteOf<'thumbnail'>,
  access: Access,
): Promise<Body> {
  const object = await deps.thumbnails.get(video, route.width, route.height, route.custom);
  if (!object) throw new DeliveryError(404, 'thumbnail_not_found', `Video ${video.id} has no thumbnail yet.`);
  return {
    ...objectBody(object),
    contentType: hlsContentTypes.thumbnail,
    cacheControl: cacheControl.thumbnail[access],
  };
}
