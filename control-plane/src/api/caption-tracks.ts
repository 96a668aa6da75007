// A video's caption tracks as the API presents them (`captions[]` in details and the captions
// routes): each with the URL of its whole WebVTT file on the delivery host.
import { captionFileNames } from '@kino/proto/contract';
import type { CaptionTrack, Video } from '@kino/database';
import type { PlaybackKeyring } from '@kino/database/playback-keys';
import { deliveryFileUrls } from './delivery-file-urls.ts';

export interface PresentedCaptionTrack {
  language: string;
  label: string;
  default: boolean;
  source: CaptionTrack['source'];
  url: string;
}

export async function presentCaptionTracks(
  keyring: Pick<PlaybackKeyring, 'activeKey'>,
  deliveryUrl: string,
  video: Pick<Video, 'id' | 'org_id' | 'env_id' | 'allow_public_access'>,
  tracks: readonly CaptionTrack[],
): Promise<PresentedCaptionTrack[]> {
  if (tracks.length === 0) return [];
  const urlOf = await deliveryFileUrls(keyring, deliveryUrl, video);
  return tracks.map((track) => ({
    language: track.language,
    label: track.label,
    default: track.is_default,
    source: track.source,
    url: urlOf(captionFileNames.whole(track.language)),
  }));
}
