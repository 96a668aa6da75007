// Animated previews: `animated.webp` and `animated.gif` in every family, a looping picture of a
// stretch of the video (`start`, `end` seconds, at most 10 apart; `width` up to 640 px; `fps` up to
// 30; defaults 0, 5, 320 and 15), made from the video's source as pictures of any moment are
// (thumbnails.ts in the package) and kept in storage.
import { DeliveryError } from '../errors.ts';
import { pictureContentTypes } from '../thumbnails.ts';
import type { Resource } from '../paths.ts';
import { cacheControl, objectBody, type Body } from '../responses.ts';
import type { FileRequest, RouteDeps } from './context.ts';

/** An animated preview's own query parameters besides the playback ones. */
export const animatedParamNames = ['start', 'end', 'width', 'fps'] as const;

const maxSeconds = 10;
const seconds = /^\d{1,6}(?:\.\d{1,3})?$/;
const integer = /^\d{1,4}$/;

export interface AnimatedStretch {
  startSeconds: number;
  endSeconds: number;
  width: number;
  fps: number;
}

/** The stretch a query asks for, or the errors of each parameter (named as `query.<name>`). */
export function animatedStretch(params: URLSearchParams, durationSeconds: number | null): AnimatedStretch {
  const errors: Array<{ message: string; location: string; value: string }> = [];
  const read = (name: string, pattern: RegExp, fallback: number, message: string) => {
    const value = params.get(name);
    if (value === null) return fallback;
    if (!pattern.test(value)) errors.push({ message, location: `query.${name}`, value });
    return Number(value);
  };
  const startSeconds = read('start', seconds, 0, 'start must be seconds from the start, at most to the millisecond');
  const endSeconds = read(
    'end',
    seconds,
    startSeconds + 5,
    'end must be seconds from the start, at most to the millisecond',
  );
  const width = read('width', integer, 320, 'width must be a whole number of pixels');
  const fps = read('fps', integer, 15, 'fps must be a whole number of frames a second');
  const check = (name: string, ok: boolean, message: string) => {
    if (!ok && !errors.some((e) => e.location === `query.${name}`))
      errors.push({ message, location: `query.${name}`, value: params.get(name) ?? '' });
  };
  check('end', endSeconds > startSeconds, 'end must be after start');
  check('end', endSeconds - startSeconds <= maxSeconds, `end must be at most ${maxSeconds} s after start`);
  if (durationSeconds !== null) {
    check('start', startSeconds < durationSeconds, `start must be before the video's end (${durationSeconds} s)`);
    check(
      'end',
      endSeconds <= durationSeconds || !params.has('end'),
      `end must be at most the video's end (${durationSeconds} s)`,
    );
  }
  check('width', width >= 16 && width <= 640, 'width must be 16 to 640');
  check('fps', fps >= 1 && fps <= 30, 'fps must be 1 to 30');
  if (errors.length > 0)
    throw new DeliveryError(
      400,
      'invalid_playback_parameters',
      'A playback query parameter is unknown or has an invalid value.',
      errors,
    );
  // An end left to its default stops at the video's end.
  const end = durationSeconds !== null ? Math.min(endSeconds, durationSeconds) : endSeconds;
  return { startSeconds, endSeconds: end, width, fps };
}

export async function animatedBody(
  deps: Pick<RouteDeps, 'thumbnails'>,
  { video, resource, access, params }: FileRequest<Extract<Resource, { type: 'animated' }>>,
): Promise<Body> {
  const source = await deps.thumbnails.sourceOf(video);
  if (!source)
    throw new DeliveryError(404, 'thumbnail_not_found', `Video ${video.id} has no source to make a preview from.`);
  const stretch = animatedStretch(params, source.durationSeconds);
  const object = await deps.thumbnails.animated(video, source, stretch, resource.format);
  return {
    ...objectBody(object),
    contentType: pictureContentTypes[resource.format],
    cacheControl: cacheControl.thumbnail[access],
  };
}
