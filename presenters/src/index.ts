// @kino/presenters: database rows as the interface's resources. The API answers with them; the
// webhooks of both the API and the orchestrator carry a video's details made here.
export { detailsOf, loadVideoDetails, type VideoDetails } from './video-details.ts';
export { presentVideoListItem } from './videos.ts';
export { thumbnailUrlsFor } from './thumbnail-urls.ts';
export { deliveryFileUrls } from './delivery-file-urls.ts';
export { presentCaptionTracks } from './caption-tracks.ts';
export { keyringFor } from './keyrings.ts';
export {
  liveStreamEventPayload,
  liveStreamStatusOf,
  presentLiveStream,
  type PresentedLiveStream,
} from './live-streams.ts';
