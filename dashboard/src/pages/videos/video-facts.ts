// What the video page derives from a video's details, in one place.
import type { VideoDetails, VideoStatus } from '@kino/sdk';

export const statusOf = (details: VideoDetails): VideoStatus =>
  details.status.ready ? 'ready' : details.status.failed ? 'failed' : 'transcoding';

/** A source without a picture: one rendition of audio alone (short edge 0), no thumbnail. */
export function isAudioOnly(video: VideoDetails): boolean {
  return video.encodings.length === 1 && video.encodings[0]!.shortEdgePixels === 0;
}

/** The largest picture of the ladder (`1080p`), or null for audio alone and before any rendition. */
export function largestRendition(video: VideoDetails): string | null {
  const pictures = video.encodings.filter((encoding) => encoding.shortEdgePixels > 0);
  if (pictures.length === 0) return null;
  return `${Math.max(...pictures.map((encoding) => encoding.shortEdgePixels))}p`;
}

/** What the master playlist says of the tracks (not their URLs: a private video's carry a fresh token each read). */
export function captionsKey(video: VideoDetails): string {
  return video.captions.map((track) => `${track.language}:${track.label}:${track.default}`).join('|');
}

/** The saved settings: the form is made again when they change (another tab, the API). */
export function settingsKey(video: VideoDetails): string {
  return JSON.stringify([video.name, video.description, video.allowPublicAccess, video.metadata]);
}
