// A video's caption tracks as the API presents them (`captions[]` in details and the captions
// routes): each with the URL of its whole WebVTT file on the delivery host.
import { captionFileNames } from '@kino/proto/contract';
import type { CaptionTrack } from '@kino/database';

export interface PresentedCaptionTrack {
  language: string;
  label: string;
  default: boolean;
  source: CaptionTrack['source'];
  url: string;
}

/** `fileUrl`: where a file of the video is on the delivery host (delivery-file-urls.ts). */
export function presentCaptionTracks(
  fileUrl: (name: string) => string,
  tracks: readonly CaptionTrack[],
): PresentedCaptionTrack[] {
  return tracks.map((track) => ({
    language: track.language,
    label: track.label,
    default: track.is_default,
    source: track.source,
    url: fileUrl(captionFileNames.whole(track.language)),
  }));
}
