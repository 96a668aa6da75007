import type { VideoDetails, VideoStatus } from '@kino/sdk';

/** The one word for a video's state (details carry three booleans). */
export function videoState(video: Pick<VideoDetails, 'status'>): VideoStatus {
  return video.status.ready ? 'ready' : video.status.failed ? 'failed' : 'transcoding';
}
