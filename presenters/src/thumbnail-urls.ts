// The `thumbnailUrl` of list items and details (docs/decisions/delivery.md): usable as given.
// - no thumbnail yet (transcoding, failed, or a ready video whose thumbnail could not be made): null,
//   rather than a URL that answers 404;
// - a public video: the plain `/t/{id}/<w>x<h>.jpg` on the delivery host;
// - a private video: the same URL with a short-lived token whose `scope` is `images`, so the URL
//   opens that video's thumbnails and nothing else (not its playlists or segments).
import type { Video } from '@kino/database';
import { IMAGE_TOKEN_SCOPE, IMAGE_TOKEN_SECONDS } from '@kino/proto/contract';
import { mintPlaybackToken } from '@kino/database/playback-keys';
import { keyringFor } from './keyrings.ts';
import type { PresentationDeps } from './deps.ts';
import { thumbnailUrl } from './format.ts';

export async function thumbnailUrlsFor(
  deps: PresentationDeps,
  videos: readonly Video[],
): Promise<Map<string, string | null>> {
  const urls = new Map<string, string | null>();
  const needTokens = videos.some((v) => v.thumbnail_key && !v.allow_public_access);
  const key = needTokens ? await keyringFor(deps).activeKey() : undefined;
  for (const video of videos) {
    if (!video.thumbnail_key) {
      urls.set(video.id, null);
      continue;
    }
    const url = thumbnailUrl(deps.config.DELIVERY_URL, video.id, video.source_width, video.source_height);
    if (video.allow_public_access) {
      urls.set(video.id, url);
      continue;
    }
    const token = await mintPlaybackToken(key!, {
      videoId: video.id,
      expiresInSeconds: IMAGE_TOKEN_SECONDS,
      scope: IMAGE_TOKEN_SCOPE,
    });
    urls.set(video.id, `${url}?token=${token}`);
  }
  return urls;
}
