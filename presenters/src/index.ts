// @kino/presenters: database rows as the interface's resources. The API answers with them; the
// webhooks of both the API and the orchestrator carry a video's details made here.
export type { PresentationDeps } from './deps.ts';
export { detailsOf, loadVideoDetails, type VideoDetails } from './video-details.ts';
export { presentVideoListItem, presentEncoding, presentVideoDetails } from './videos.ts';
export { thumbnailUrlsFor } from './thumbnail-urls.ts';
export { deliveryFileUrls, FILE_TOKEN_SECONDS } from './delivery-file-urls.ts';
export { presentCaptionTracks, type PresentedCaptionTrack } from './caption-tracks.ts';
export { keyringFor } from './keyrings.ts';
export { formatDuration, estimateViews, formatViews, thumbnailSize, thumbnailUrl } from './format.ts';
