// The details object of a video (GET /{orgID}/videos/{publicID}/details), made in one place: the
// API's details, PATCH and webhook events, and the orchestrator's webhook events, all answer it.
import type { CaptionTrack, Rendition, Video } from '@kino/database';
import {
  findWhyWaiting,
  getLiveStream,
  getVideo,
  isBroadcasting,
  listCaptionTracks,
  listRenditions,
} from '@kino/database/repositories';
import { presentVideoDetails } from './videos.ts';
import type { PresentationDeps } from './deps.ts';
import { thumbnailUrlsFor } from './thumbnail-urls.ts';
import { keyringFor } from './keyrings.ts';
import { audioDownloadName, storyboardVttName } from '@kino/proto/contract';
import { deliveryFileUrls } from './delivery-file-urls.ts';
import { presentCaptionTracks } from './caption-tracks.ts';

export type VideoDetails = ReturnType<typeof presentVideoDetails>;

/** The details body of `video`, given the reads that need only its id (the caller makes them beside its own). */
export async function detailsOf(
  deps: PresentationDeps,
  video: Video,
  reads: { renditions: Rendition[]; served: Map<string, number>; captionTracks: CaptionTrack[] },
): Promise<VideoDetails> {
  const [thumbnails, fileUrl, waitingFor, stream] = await Promise.all([
    thumbnailUrlsFor(deps, [video]),
    deliveryFileUrls(keyringFor(deps), deps.config.DELIVERY_URL, video),
    // Only a video in the making has encodes waiting for a node that can run them.
    video.status === 'transcoding' ? findWhyWaiting(deps.db, video.id) : undefined,
    // A broadcast's video is live while its stream's active video is this one (never stored twice).
    video.live_stream_id ? getLiveStream(deps.db, video.live_stream_id) : undefined,
  ]);
  // Undefined while the video has no such file (not ready, silent, made before audio downloads),
  // so that a client is never handed a URL that answers 404.
  const ready = video.status === 'ready';
  const storyboardUrl = ready && video.storyboard_key ? fileUrl(storyboardVttName) : undefined;
  const audioUrl = ready && video.audio_key ? fileUrl(audioDownloadName) : undefined;
  const captions = presentCaptionTracks(fileUrl, reads.captionTracks);
  return presentVideoDetails(
    video,
    reads.renditions,
    thumbnails.get(video.id) ?? null,
    reads.served.get(video.id) ?? 0,
    { storyboardUrl, audioUrl },
    captions,
    waitingFor,
    stream !== undefined && stream.active_video_id === video.id && isBroadcasting(stream),
  );
}

/** The details of a video read afresh, deleted or not; undefined when there is no such row. */
export async function loadVideoDetails(
  deps: PresentationDeps,
  videoId: string,
  served: Map<string, number> = new Map(),
): Promise<VideoDetails | undefined> {
  const [video, renditions, captionTracks] = await Promise.all([
    getVideo(deps.db, videoId),
    listRenditions(deps.db, videoId),
    listCaptionTracks(deps.db, videoId),
  ]);
  return video && detailsOf(deps, video, { renditions, served, captionTracks });
}
