// Where a person goes next with a video: its playback URL (the HLS master), its embed page on the
// delivery host, and its page in the dashboard. The delivery host's origin and, for a private
// video, a playback token come from a signed URL the API mints; the dashboard is served by the
// control plane at /dashboard on the API's own origin.
import type { Kino, VideoDetails } from '@kino/sdk';
import { hlsMasterName, videoDeliveryUrls, type PlaybackExpiration } from '@kino/proto/contract';

export interface VideoLinks {
  playbackUrl: string;
  embedUrl: string;
  dashboardUrl: string;
}

/** How long a private video's playback and embed URLs work: a day, long enough to try and share them. */
export const privateLinkExpiration: PlaybackExpiration = '24h';

/** The dashboard's page of a video, from the API root (`https://kino.example.com/v1/api`). */
export function dashboardVideoUrl(apiUrl: string, videoId: string): string {
  return `${new URL(apiUrl).origin}/dashboard/videos/${encodeURIComponent(videoId)}`;
}

export async function videoLinks(kino: Kino, apiUrl: string, orgId: string, video: VideoDetails): Promise<VideoLinks> {
  const signed = new URL(
    (await kino.playback.signedUrl(orgId, video.id, { expiration: privateLinkExpiration })).signed_url,
  );
  const urls = videoDeliveryUrls(signed.origin, {
    videoId: video.id,
    orgId,
    envId: video.envId,
    token: video.allowPublicAccess ? null : signed.searchParams.get('token'),
  });
  return {
    playbackUrl: urls.file(hlsMasterName),
    embedUrl: urls.embed,
    dashboardUrl: dashboardVideoUrl(apiUrl, video.id),
  };
}
