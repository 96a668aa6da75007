// Storyboard files (storyboards.ts in the package): the WebVTT that maps times to tiles, and its
// sheets. A token that opened the VTT is put on the sheet URIs it names.
import { readFile } from 'node:fs/promises';
import { storyboardContentTypes } from '@kino/proto/contract';
import { DeliveryError } from '../errors.ts';
import { contentEtag } from '../object-cache.ts';
import { storageKeyOf, type Resource } from '../paths.ts';
import { cacheControl, objectBody, type Body } from '../responses.ts';
import { rewriteStoryboardVtt } from '../storyboards.ts';
import type { FileRequest, RouteDeps } from './context.ts';

export async function storyboardBody(
  deps: Pick<RouteDeps, 'cache'>,
  { video, resource, access, token }: FileRequest<Extract<Resource, { type: 'storyboard' | 'storyboard_sheet' }>>,
): Promise<Body> {
  const key = storageKeyOf(video.id, resource);
  const object = video.storyboardKey ? await deps.cache.get(key) : undefined;
  if (!object) throw new DeliveryError(404, 'storyboard_not_found', `Video ${video.id} has no such storyboard file.`);
  if (resource.type === 'storyboard_sheet') {
    return {
      ...objectBody(object),
      contentType: storyboardContentTypes.sheet,
      cacheControl: cacheControl.media[access],
    };
  }
  // The VTT is short-lived like a playlist (a deleted video stops offering its sheets soon).
  const vtt = { contentType: storyboardContentTypes.vtt, cacheControl: cacheControl.playlist[access] };
  if (!token) return { ...objectBody(object), ...vtt };
  const text = (object.data ?? (await readFile(object.path))).toString('utf8');
  const data = Buffer.from(rewriteStoryboardVtt(text, `?token=${encodeURIComponent(token)}`), 'utf8');
  return { ...vtt, data, size: data.length, etag: contentEtag(data) };
}
