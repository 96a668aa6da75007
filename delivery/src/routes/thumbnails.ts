// Thumbnails: `/t/{videoId}/<w>x<h>.jpg` (`.png`, `.webp`; and a custom thumbnail's), made at the
// asked size by the thumbnail maker (thumbnails.ts in the package), behind the same token rules as
// playback; with `?time=<seconds>`, the frame at that moment of the video.
import { DeliveryError } from '../errors.ts';
import type { PlayableVideo } from '../video-catalog.ts';
import { pictureContentTypes } from '../thumbnails.ts';
import { cacheControl, objectBody, sendBody, type Access, type Body } from '../responses.ts';
import { openVideo, type RouteDeps, type RouteHandler, type RouteOf } from './context.ts';

/** A picture's own query parameter besides the playback ones: the moment, in seconds (omitted: the default thumbnail). */
export const pictureParamNames = ['time'] as const;

/** Seconds with at most millisecond precision: `12`, `12.5`, `0.033`. */
const seconds = /^\d{1,6}(?:\.\d{1,3})?$/;

export const serveThumbnail: RouteHandler<'thumbnail'> = async (deps, { req, res, params }, route) => {
  const time = params.get('time');
  if (time !== null && (!seconds.test(time) || route.custom))
    throw invalidTime(
      time,
      route.custom
        ? 'time picks a moment of the video, not of a custom thumbnail'
        : 'time must be seconds from the start, at most to the millisecond (12.5)',
    );
  const { video, access } = await openVideo(deps, req, params, route);
  const body =
    time === null
      ? await thumbnailBody(deps, video, route, access)
      : await momentBody(deps, video, route, access, Number(time));
  await sendBody(deps.recordSegment, req, res, body);
};

function invalidTime(value: string, message: string): DeliveryError {
  return new DeliveryError(
    400,
    'invalid_playback_parameters',
    'A playback query parameter is unknown or has an invalid value.',
    [{ message, location: 'query.time', value }],
  );
}

/** The frame at `timeSeconds`: 400 past the video's end, 404 while its source is gone. */
async function momentBody(
  deps: Pick<RouteDeps, 'thumbnails'>,
  video: PlayableVideo,
  route: RouteOf<'thumbnail'>,
  access: Access,
  timeSeconds: number,
): Promise<Body> {
  const source = await deps.thumbnails.sourceOf(video);
  if (!source)
    throw new DeliveryError(404, 'thumbnail_not_found', `Video ${video.id} has no source to take a picture from.`);
  // The last frame starts before the end: a moment at or past it has no frame.
  if (source.durationSeconds !== null && timeSeconds >= source.durationSeconds)
    throw invalidTime(String(timeSeconds), `time must be before the video's end (${source.durationSeconds} s)`);
  const object = await deps.thumbnails.at(video, source, timeSeconds, route);
  return {
    ...objectBody(object),
    contentType: pictureContentTypes[route.format],
    cacheControl: cacheControl.thumbnail[access],
  };
}

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
  const object = await deps.thumbnails.get(video, route, route.custom);
  if (!object) throw new DeliveryError(404, 'thumbnail_not_found', `Video ${video.id} has no thumbnail yet.`);
  return {
    ...objectBody(object),
    contentType: pictureContentTypes[route.format],
    cacheControl: cacheControl.thumbnail[access],
  };
}
