// What a developer copies to play the video elsewhere, as short chips that copy the whole value: the
// HLS master, the embed page, the embed snippet (delivery's own oEmbed iframe), the animated preview,
// an MP4 per H.264 rendition with a picture and the sound alone (`audioUrl`). A public video's URLs
// never expire; a private video's carry the token of a 7-day signed URL, and a line says until when.
import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { embedPaths, hlsMasterName, mp4DownloadName, videoDeliveryUrls } from '@kino/proto/contract';
import type { SignedPlaybackUrl, VideoDetails } from '@kino/sdk';
import { animatedPreviewUrl } from '@kino/sdk/browser';
import { api } from '../../api.ts';
import { CopyChip } from '../../components/copy-chip.tsx';
import { Skeleton } from '../../components/skeleton.tsx';
import { isAudioOnly } from './video-facts.ts';

/** How long the token in a private video's copyable URLs (playback, embed, MP4) lasts: the longest signed URL the API mints. */
const privateUrlExpiration = '7d';

/** Where the delivery host serves the video: its origin, and for a private video a token and when it expires. */
export interface DeliveryUrls {
  origin: string;
  token: string | null;
  expiresAt: Date | null;
}

/** A signed URL minted for the delivery host's origin and, when the video is private, its token. */
async function deliveryUrlsOf(videoPath: string, video: VideoDetails): Promise<DeliveryUrls> {
  const isPrivate = !video.allowPublicAccess;
  const signed = await api<SignedPlaybackUrl>(
    `${videoPath}/signed-url?expiration=${isPrivate ? privateUrlExpiration : '15m'}`,
  );
  const url = new URL(signed.signed_url);
  return {
    origin: url.origin,
    token: isPrivate ? url.searchParams.get('token') : null,
    expiresAt: isPrivate ? new Date(Date.now() + signed.expires_in * 1000) : null,
  };
}

/** The delivery URLs of a ready video (one signed URL minted per access setting). */
export function useDeliveryUrls(videoPath: string, orgId: string, video: VideoDetails | undefined, ready: boolean) {
  return useQuery({
    queryKey: ['delivery-urls', orgId, video?.id, video?.allowPublicAccess],
    queryFn: () => deliveryUrlsOf(videoPath, video!),
    enabled: ready && video !== undefined,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
}

/**
 * The iframe snippet to put the video on a site: delivery's own oEmbed answer for the embed URL (the
 * one place that writes the iframe), read across origins (delivery answers CORS).
 */
function useEmbedSnippet(embedUrl: string | undefined, origin: string | undefined, name: string) {
  return useQuery({
    queryKey: ['embed-snippet', embedUrl, name],
    queryFn: async () => {
      const response = await fetch(
        `${origin}${embedPaths.oembed}?url=${encodeURIComponent(embedUrl!)}&maxwidth=640&format=json`,
      );
      if (!response.ok) throw new Error(`The delivery host answered ${response.status} for the embed.`);
      return ((await response.json()) as { html: string }).html;
    },
    enabled: embedUrl !== undefined,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
}

export function DeliveryChips({
  orgId,
  video,
  urls,
}: {
  orgId: string;
  video: VideoDetails;
  urls: UseQueryResult<DeliveryUrls>;
}) {
  const at = urls.data
    ? videoDeliveryUrls(urls.data.origin, { videoId: video.id, orgId, envId: video.envId, token: urls.data.token })
    : undefined;
  const snippet = useEmbedSnippet(at?.embed, urls.data?.origin, video.name);
  if (!at) {
    return urls.error ? (
      <p class="error">{(urls.error as Error).message}</p>
    ) : (
      <Skeleton lines={2} label="Preparing the URLs" />
    );
  }
  const master = at.file(hlsMasterName);
  // The delivery host makes MP4 downloads of the H.264 ladder only: other codecs play in HLS alone.
  const renditions = video.encodings.filter(
    (encoding) => encoding.shortEdgePixels > 0 && encoding.videoCodec === 'h264',
  );
  return (
    <div class="delivery-chips" data-testid="delivery-links">
      <div class="chips" role="group" aria-label="Playback and embed">
        <CopyChip label="Playback URL" value={master} testId="playback-url" />
        <CopyChip label="Embed URL" value={at.embed} testId="embed-page-url" />
        {snippet.data && <CopyChip label="Embed code" value={snippet.data} testId="embed-html" />}
        {!isAudioOnly(video) && (
          <CopyChip
            label="Animated preview"
            value={animatedPreviewUrl(master, { start: 0, end: 5, width: 320 })}
            testId="animated-preview-url"
          />
        )}
      </div>
      {(renditions.length > 0 || video.audioUrl) && (
        <div class="chips" role="group" aria-label="Downloads">
          {renditions.map((encoding) => (
            <CopyChip
              key={encoding.key}
              label={`MP4 ${encoding.key}`}
              value={at.file(mp4DownloadName(encoding.key))}
              testId="mp4-download"
            />
          ))}
          {video.audioUrl && <CopyChip label="Audio (M4A)" value={video.audioUrl} testId="audio-download" />}
        </div>
      )}
      {snippet.error && <p class="error">{(snippet.error as Error).message}</p>}
      {urls.data!.expiresAt && (
        <p class="muted small" data-testid="embed-expiry">
          Private: these URLs carry a token that stops playing on {urls.data!.expiresAt.toLocaleString()}.
        </p>
      )}
    </div>
  );
}
