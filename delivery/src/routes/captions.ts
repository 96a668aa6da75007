// Caption files: a track's subtitles playlist, one of its WebVTT segments, or its whole file, made
// from the track's stored file (captions.ts in the package).
import type { CaptionResource } from '../captions.ts';
import { DeliveryError } from '../errors.ts';
import { cacheControl, type Body } from '../responses.ts';
import type { FileRequest, RouteDeps } from './context.ts';

/** Short-lived like playlists: a track can be replaced or removed under the same names. */
export async function captionBody(
  deps: Pick<RouteDeps, 'captionFiles'>,
  { video, resource, access, token }: FileRequest<CaptionResource>,
): Promise<Body> {
  const track = video.captions.get(resource.language);
  if (!track)
    throw new DeliveryError(
      404,
      'caption_not_found',
      `Video ${video.id} has no caption track for "${resource.language}".`,
    );
  const file = await deps.captionFiles.get(video, track, resource, token);
  return { ...file, size: file.data.length, cacheControl: cacheControl.playlist[access] };
}
