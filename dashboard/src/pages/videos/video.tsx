// One video: at the top the player (Kino's own <kino-player>, on a signed URL minted by the API for
// the session), the status (read again when the live updates say the video changed), the key facts
// and the URLs to copy as short chips (playback, embed URL and code, animated preview, MP4s, audio);
// below, tabs for the rest: settings with the thumbnail picker, captions (files, generated from the
// speech, transcripts), clips, share links, the encoding in words with the ladder, and analytics.
// Every call is the ordinary API's (and the delivery host's oEmbed).
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { SignedPlaybackUrl, Thumbnail, VideoDetails } from '@kino/sdk';
import { api, API_ROOT, ApiError, isRateLimited, json } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { VideoPlayer } from '../../components/player/video-player.tsx';
import { ThumbnailPicker } from '../../components/player/thumbnail-picker.tsx';
import { describeError, ErrorNote } from '../../components/error-note.tsx';
import { CopyChip } from '../../components/copy-chip.tsx';
import { Tabs, type Tab } from '../../components/tabs.tsx';
import { Skeleton } from '../../components/skeleton.tsx';
import { StatusBadge } from './status-badge.tsx';
import { Captions } from './captions.tsx';
import { VideoSettings } from './video-settings.tsx';
import { ClipMaker } from './clip.tsx';
import { ShareLinks } from './share-links.tsx';
import { EncodingTab } from './encoding-tab.tsx';
import { VideoAnalytics } from './video-analytics.tsx';
import { DeliveryChips, useDeliveryUrls } from './delivery-chips.tsx';
import { captionsKey, isAudioOnly, largestRendition, settingsKey, statusOf } from './video-facts.ts';
import './videos.css';

export function VideoPage({ publicID }: { publicID?: string }) {
  const session = useSession();
  const orgId = session.org!.id;
  const id = publicID!;
  const videoPath = `${API_ROOT}/${orgId}/videos/${encodeURIComponent(id)}`;
  const queryClient = useQueryClient();
  const { route } = useLocation();
  const [videoElement, setVideoElement] = useState<HTMLVideoElement | null>(null);

  const details = useQuery({
    queryKey: ['video', orgId, id],
    queryFn: () => api<VideoDetails>(`${videoPath}/details`),
    // No timer: the live updates (live-updates.ts) mark it stale when the video changes, so the page
    // shows it become ready (or failed) on its own.
  });
  const ready = details.data?.status.ready === true;
  const playback = useQuery({
    queryKey: ['signed-url', orgId, id],
    queryFn: () => api<SignedPlaybackUrl>(`${videoPath}/signed-url?expiration=4h`),
    enabled: ready,
    // A fresh URL well before its 4 h token expires; never refetched under a playing video otherwise.
    staleTime: 3 * 3600_000,
    refetchOnWindowFocus: false,
  });
  const deliveryUrls = useDeliveryUrls(videoPath, orgId, details.data, ready);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['video', orgId, id] });
  const retry = useMutation({ mutationFn: () => api(`${videoPath}/retry`, { method: 'POST' }), onSuccess: refresh });
  const remove = useMutation({
    mutationFn: () => api(videoPath, json('DELETE', { reason: 'user_request' })),
    onSuccess: () => {
      // Dropped rather than marked stale: a cached table would show the deleted video for a moment.
      queryClient.removeQueries({ queryKey: ['videos', orgId] });
      route('/dashboard/videos');
    },
  });

  if (details.error) {
    const notFound = details.error instanceof ApiError && details.error.status === 404;
    return (
      <section>
        <h1>{notFound ? 'No such video' : 'Video'}</h1>
        <p
          class="error"
          role="alert"
          data-testid="video-error"
          data-rate-limited={isRateLimited(details.error) || undefined}
        >
          {notFound ? `Video ${id} does not exist or was deleted.` : describeError(details.error)}
        </p>
        <a href="/dashboard/videos">← Videos</a>
      </section>
    );
  }
  const video = details.data;
  if (!video)
    return (
      <div class="video-page video-top" data-testid="video-loading">
        <Skeleton box="16 / 9" lines={0} label="Loading the video" />
        <Skeleton lines={6} label="" />
      </div>
    );
  const status = statusOf(video);
  const largest = largestRendition(video);

  const tabs: Tab[] = [
    {
      id: 'settings',
      label: 'Settings',
      content: (
        <div class="tab-columns">
          {/* Keyed by the saved values, so a change made elsewhere (another tab, the API) resets the form. */}
          <VideoSettings key={settingsKey(video)} video={video} videoPath={videoPath} orgId={orgId} />
          {ready && (
            <section aria-labelledby="thumbnail-title">
              <h2 id="thumbnail-title">Thumbnail</h2>
              {isAudioOnly(video) ? (
                <p class="muted" data-testid="audio-only-note">
                  An audio-only video: there is no picture to take a thumbnail or a storyboard from.
                </p>
              ) : (
                <ThumbnailPicker
                  durationSeconds={video.durationSeconds}
                  storyboardUrl={video.storyboardUrl}
                  thumbnailUrl={video.thumbnailUrl}
                  video={videoElement}
                  onPick={async (timestamp) => {
                    await api<Thumbnail>(`${videoPath}/thumbnails`, json('POST', { timestamp, setAsDefault: true }));
                    await refresh();
                  }}
                />
              )}
            </section>
          )}
        </div>
      ),
    },
    ...(ready
      ? [
          {
            id: 'captions',
            label: 'Captions',
            content: <Captions videoPath={videoPath} orgId={orgId} videoId={video.id} onChange={refresh} />,
          },
          {
            id: 'clips',
            label: 'Clips',
            content: <ClipMaker videoPath={videoPath} durationSeconds={video.durationSeconds} video={videoElement} />,
          },
          {
            id: 'share',
            label: 'Share links',
            content: <ShareLinks videoPath={videoPath} orgId={orgId} videoId={video.id} />,
          },
        ]
      : []),
    { id: 'encoding', label: 'Encoding', content: <EncodingTab video={video} /> },
    ...(ready
      ? [{ id: 'analytics', label: 'Analytics', content: <VideoAnalytics videoPath={videoPath} videoId={video.id} /> }]
      : []),
  ];

  return (
    <div class="video-page" data-testid="video-page">
      <div class="page-title">
        <h1>
          <a href="/dashboard/videos" class="muted">
            Videos
          </a>{' '}
          / <span class="video-name">{video.name}</span>
        </h1>
        <div class="actions">
          {status === 'failed' && (
            <button type="button" data-testid="video-retry" disabled={retry.isPending} onClick={() => retry.mutate()}>
              Retry processing
            </button>
          )}
          <button
            type="button"
            class="danger"
            data-testid="video-delete"
            disabled={remove.isPending}
            onClick={() => {
              if (confirm(`Delete "${video.name}"? It disappears at once; its files are removed within a day.`))
                remove.mutate();
            }}
          >
            Delete
          </button>
        </div>
      </div>
      <ErrorNote error={retry.error ?? remove.error} wide />
      <div class="video-top">
        <div class="video-stage">
          {status === 'failed' ? (
            <div class="player-placeholder failed" data-testid="failure">
              <div>
                <h2>Processing failed</h2>
                <p data-testid="failure-reason">{video.failureReason ?? 'No reason was recorded.'}</p>
                <p>Retry processing, or delete the video and upload its file again.</p>
              </div>
            </div>
          ) : ready && playback.data ? (
            // A new player when the tracks change: the master playlist it loaded named the old ones.
            <VideoPlayer
              key={captionsKey(video)}
              src={playback.data.signed_url}
              poster={video.thumbnailUrl ?? undefined}
              storyboard={video.storyboardUrl}
              subtitleLanguages={video.captions.map((track) => track.language)}
              onVideoElement={setVideoElement}
            />
          ) : (
            // The player's own 16:9 box, so the page does not move when the player replaces it.
            <div class="player-placeholder" data-testid="player-placeholder">
              {video.thumbnailUrl && <img src={video.thumbnailUrl} alt="" />}
              {!ready ? (
                <p data-testid="transcoding-note">Transcoding… this page updates when the video is ready.</p>
              ) : (
                <p>{playback.error ? (playback.error as Error).message : 'Preparing playback…'}</p>
              )}
            </div>
          )}
        </div>
        <section class="video-summary" aria-label="About this video">
          <dl class="key-facts">
            <dt>Status</dt>
            <dd>
              <StatusBadge status={status} />
            </dd>
            <dt>Duration</dt>
            <dd>{video.duration}</dd>
            <dt>Size</dt>
            <dd>{largest ?? (isAudioOnly(video) ? 'audio only' : '—')}</dd>
            <dt>Views</dt>
            <dd>{video.served}</dd>
            <dt>Access</dt>
            <dd data-testid="fact-access">{video.allowPublicAccess ? 'Public' : 'Private (signed URLs)'}</dd>
            <dt>Created</dt>
            <dd>{new Date(video.createdAt).toLocaleString()}</dd>
            <dt>ID</dt>
            <dd>
              <CopyChip label={video.publicID} value={video.publicID} testId="video-id" />
            </dd>
            {video.clipOf && (
              <>
                <dt>Clip of</dt>
                <dd data-testid="clip-of">
                  <a href={`/dashboard/videos/${encodeURIComponent(video.clipOf.videoId)}`}>{video.clipOf.videoId}</a> (
                  {video.clipOf.startTime}–{video.clipOf.endTime} s)
                </dd>
              </>
            )}
            {video.metadata?.externalId && (
              <>
                <dt>External id</dt>
                <dd data-testid="fact-external-id">
                  <code>{video.metadata.externalId}</code>
                </dd>
              </>
            )}
          </dl>
          {video.description && <p class="video-description">{video.description}</p>}
          {ready && <DeliveryChips orgId={orgId} video={video} urls={deliveryUrls} />}
        </section>
      </div>
      <Tabs label="Video" tabs={tabs} testId="video-tabs" />
    </div>
  );
}
