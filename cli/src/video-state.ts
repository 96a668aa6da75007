import type { VideoDetails } from '@kino/sdk';

/** The one word for a video's state (details carry three booleans). */
export function videoState(video: Pick<VideoDetails, 'status'>): 'ready' | 'failed' | 'transcoding' {
  return video.status.ready ? 'ready' : video.status.failed ? 'failed' : 'transcoding';
}
