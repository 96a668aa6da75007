// One video: the player (a signed URL minted by the API for the session), status (read again when
// the live updates say the video changed), the encoding ladder and settings, delete and retry, share links, and the thumbnail
// picker, caption tracks, settings (name, description, access, metadata), a clip from the player's
// position, the URLs to copy (playback, embed) and the downloads (MP4 per rendition, audio), the
// embed snippet, and why a failed video failed. Every call is the ordinary API's (and the delivery host's oEmbed).
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useMutation, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { embedPaths, hlsMasterName, mp4DownloadName, videoDeliveryUrls } from '@kino/proto/contract';
import type {
  CreateShareLinkParams,
  Encoding,
  ShareLink,
  SignedPlaybackUrl,
  Thumbnail,
  VideoDetails,
  VideoStatus,
} from '@kino/sdk';
import { api, API_ROOT, ApiError, isRateLimited, json } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { Player } from '../../components/player/player.tsx';
import { animatedPreviewUrl } from '@kino/sdk/browser';
import { ThumbnailPicker } from '../../components/player/thumbnail-picker.tsx';
import { useToast } from '../../components/toasts.tsx';
import { describeError, ErrorNote } from '../../components/error-note.tsx';
import { useList, useListChange } from '../../use-list.ts';
import { StatusBadge } from './status-badge.tsx';
import { Captions } from './captions.tsx';
import { VideoSettings } from './video-settings.tsx';
import { ClipMaker } from './clip.tsx';
import { encodingModeLabels, videoCodecLabels } from '../../encoding-labels.ts';
import './videos.css';

const statusOf = (details: VideoDetails): VideoStatus =>
  details.status.ready ? 'ready' : details.status.failed ? 'failed' : 'transcoding';

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
  const deliveryUrls = useQuery({
    queryKey: ['delivery-urls', orgId, id, details.data?.allowPublicAccess],
    queryFn: () => deliveryUrlsOf(videoPath, details.data!),
    enabled: ready,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
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
  if (!video) return <p class="muted">Loading…</p>;
  const status = statusOf(video);

  return (
    <div class="video-page" data-testid="video-page">
      <div class="wide page-title">
        <h1>
          <a href="/dashboard/videos" class="muted">
            Videos
          </a>{' '}
          / {video.name} <StatusBadge status={status} />
        </h1>
        <div class="actions">
          <a href={`/dashboard/analytics?video=${encodeURIComponent(video.id)}`}>Analytics</a>
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
      <div>
        {status === 'failed' ? (
          <section class="card" data-testid="failure">
            <h2>Processing failed</h2>
            <p class="error" data-testid="failure-reason">
              {video.failureReason ?? 'No reason was recorded.'}
            </p>
            <p class="muted">Retry processing, or delete the video and upload its file again.</p>
          </section>
        ) : (
          <section class="card">
            {ready && playback.data ? (
              // A new player when the tracks change: the master playlist it loaded named the old ones.
              <Player
                key={captionsKey(video)}
                src={playback.data.signed_url}
                poster={video.thumbnailUrl ?? undefined}
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
          </section>
        )}
        {ready && <DeliveryLinks orgId={orgId} video={video} urls={deliveryUrls} />}
        {ready && isAudioOnly(video) && (
          <section class="card" data-testid="audio-only-note">
            <h2>Thumbnail</h2>
            <p class="muted">An audio-only video: there is no picture to take a thumbnail or a storyboard from.</p>
          </section>
        )}
        {ready && !isAudioOnly(video) && (
          <section class="card">
            <h2>Thumbnail</h2>
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
          </section>
        )}
      </div>
      <div>
        <section class="card">
          <h2>Details</h2>
          <dl class="facts">
            <dt>ID</dt>
            <dd>
              <code>{video.publicID}</code>
            </dd>
            <dt>Duration</dt>
            <dd>{video.duration}</dd>
            {video.clipOf && (
              <>
                <dt>Clip of</dt>
                <dd data-testid="clip-of">
                  <a href={`/dashboard/videos/${encodeURIComponent(video.clipOf.videoId)}`}>{video.clipOf.videoId}</a> (
                  {video.clipOf.startTime}–{video.clipOf.endTime} s)
                </dd>
              </>
            )}
            <dt>Created</dt>
            <dd>{new Date(video.createdAt).toLocaleString()}</dd>
            <dt>Access</dt>
            <dd>{video.allowPublicAccess ? 'public' : 'private (signed URLs)'}</dd>
            <dt>Quality</dt>
            <dd>{video.videoQuality}</dd>
            <dt>Max edge</dt>
            <dd>{video.maxEdgeLength === -1 ? 'auto' : `${video.maxEdgeLength} px`}</dd>
            <dt>Compression</dt>
            <dd>{video.compressionRatio}</dd>
            <dt>Encoding</dt>
            <dd data-testid="fact-encoding">
              {encodingModeLabels[video.encodingMode]},{' '}
              {['h264' as const, ...video.additionalCodecs].map((codec) => videoCodecLabels[codec]).join(' + ')}
            </dd>
            <dt>Audio codec</dt>
            <dd>{video.audioCodec}</dd>
            <dt>Served</dt>
            <dd>{video.served}</dd>
            {video.description && (
              <>
                <dt>Description</dt>
                <dd>{video.description}</dd>
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
        </section>
        {/* Keyed by the saved values, so a change made elsewhere (another tab, the API) resets the form. */}
        <VideoSettings key={settingsKey(video)} video={video} videoPath={videoPath} orgId={orgId} />
        {ready && <ClipMaker videoPath={videoPath} durationSeconds={video.durationSeconds} video={videoElement} />}
        {ready && <Captions videoPath={videoPath} orgId={orgId} videoId={video.id} onChange={refresh} />}
        {ready && <EmbedSnippet orgId={orgId} video={video} urls={deliveryUrls} />}
      </div>
      {/* Tables of many columns take the page's whole width. */}
      <div class="wide">
        <section class="card">
          <h2>Encoding ladder</h2>
          {video.encodings.length === 0 ? (
            <p class="muted">No renditions yet.</p>
          ) : (
            <table data-testid="encoding-ladder">
              <thead>
                <tr>
                  <th>Rendition</th>
                  <th>Codec</th>
                  <th>Short edge</th>
                  <th>Bitrate</th>
                  <th>VMAF</th>
                  <th>Audio</th>
                  <th>Frame rate</th>
                  <th>Pixel format</th>
                  <th>Rate control</th>
                </tr>
              </thead>
              <tbody>
                {video.encodings.map((encoding) => (
                  <tr key={encoding.key} data-testid="encoding-row">
                    <td>{encoding.key}</td>
                    <td data-testid="encoding-codec">
                      {encoding.shortEdgePixels === 0 ? '—' : videoCodecLabels[encoding.videoCodec]}
                    </td>
                    <td>
                      {encoding.shortEdgePixels === 0
                        ? 'audio only'
                        : `${encoding.shortEdgePixels} px (${encoding.shortEdgeIsWidth ? 'width' : 'height'})`}
                    </td>
                    <td data-testid="encoding-bitrate">
                      <Bitrate encoding={encoding} />
                    </td>
                    <td data-testid="encoding-vmaf">{encoding.vmaf === undefined ? '—' : encoding.vmaf.toFixed(2)}</td>
                    <td>
                      {encoding.audioFormat} {encoding.audioStreamBitrate} kbps
                    </td>
                    <td>{encoding.maxFrameRate}</td>
                    <td>{encoding.pixelFormat}</td>
                    <td>
                      {encoding.rateControlMode}
                      {encoding.twoPassVBREncoding ? ', two-pass' : ''}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        {ready && <ShareLinks videoPath={videoPath} orgId={orgId} videoId={video.id} />}
      </div>
    </div>
  );
}

function settingsKey(video: VideoDetails): string {
  return JSON.stringify([video.name, video.description, video.allowPublicAccess, video.metadata]);
}

/**
 * A rendition's bitrate: the average measured over the whole rendition (audio included) when the
 * farm kept it, else the ladder's target for the video stream, each labelled as what it is.
 */
function Bitrate({ encoding }: { encoding: Encoding }) {
  if (encoding.averageBitrate === undefined) {
    return (
      <span title="The ladder's target for the video stream; not measured">
        {encoding.videoStreamBitrate} kbps <span class="muted">ladder</span>
      </span>
    );
  }
  return (
    <span
      title={`Measured over the whole rendition, audio included; the ladder's target is ${encoding.videoStreamBitrate} kbps`}
    >
      {encoding.averageBitrate} kbps <span class="muted">measured</span>
    </span>
  );
}

/** A source without a picture: one rendition of audio alone (short edge 0), no thumbnail. */
function isAudioOnly(video: VideoDetails): boolean {
  return video.encodings.length === 1 && video.encodings[0]!.shortEdgePixels === 0;
}

/** What the master playlist says of the tracks (not their URLs: a private video's carry a fresh token each read). */
function captionsKey(video: VideoDetails): string {
  return video.captions.map((track) => `${track.language}:${track.label}:${track.default}`).join('|');
}

/** How long the token in a private video's copyable URLs (playback, embed, MP4) lasts: the longest signed URL the API mints. */
const privateUrlExpiration = '7d';

/** Where the delivery host serves the video: its origin, and for a private video a token and when it expires. */
interface DeliveryUrls {
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

type DeliveryUrlsQuery = UseQueryResult<DeliveryUrls>;

function urlsOf(orgId: string, video: VideoDetails, urls: DeliveryUrls) {
  return videoDeliveryUrls(urls.origin, { videoId: video.id, orgId, envId: video.envId, token: urls.token });
}

/**
 * What a developer copies to play the video elsewhere (the HLS master, the embed page) and the
 * files to download: an MP4 per H.264 rendition with a picture, and the sound alone (`audioUrl`). A
 * public video's URLs never expire; a private video's carry a token (the card says until when).
 */
function DeliveryLinks({ orgId, video, urls }: { orgId: string; video: VideoDetails; urls: DeliveryUrlsQuery }) {
  if (!urls.data) {
    return (
      <section class="card">
        <h2>Playback URLs</h2>
        <p class="muted">{urls.error ? (urls.error as Error).message : 'Preparing the URLs…'}</p>
      </section>
    );
  }
  const at = urlsOf(orgId, video, urls.data);
  // The delivery host makes MP4 downloads of the H.264 ladder only: other codecs play in HLS alone.
  const renditions = video.encodings.filter(
    (encoding) => encoding.shortEdgePixels > 0 && encoding.videoCodec === 'h264',
  );
  return (
    <section class="card" data-testid="delivery-links">
      <h2>Playback URLs</h2>
      <CopyableUrl label="Playback URL (HLS)" url={at.file(hlsMasterName)} testId="playback-url" />
      <CopyableUrl label="Embed URL" url={at.embed} testId="embed-page-url" />
      {!isAudioOnly(video) && (
        <CopyableUrl
          label="Animated preview (WebP, the first 5 s)"
          url={animatedPreviewUrl(at.file(hlsMasterName), { start: 0, end: 5, width: 320 })}
          testId="animated-preview-url"
        />
      )}
      {urls.data.expiresAt && <PrivateExpiry expiresAt={urls.data.expiresAt} />}
      {(renditions.length > 0 || video.audioUrl) && (
        <>
          <h3>Downloads</h3>
          <ul class="downloads">
            {renditions.map((encoding) => (
              <li key={encoding.key}>
                <a href={at.file(mp4DownloadName(encoding.key))} data-testid="mp4-download" download>
                  MP4 {encoding.key}
                </a>
              </li>
            ))}
            {video.audioUrl && (
              <li>
                <a href={video.audioUrl} data-testid="audio-download" download>
                  Audio (audio.m4a)
                </a>
              </li>
            )}
          </ul>
        </>
      )}
    </section>
  );
}

function PrivateExpiry({ expiresAt }: { expiresAt: Date }) {
  return (
    <p class="muted" data-testid="embed-expiry">
      This video is private: these URLs carry a signed token that stops playing on {expiresAt.toLocaleString()} (7
      days). Copy new ones then, or make the video public for URLs that never expire.
    </p>
  );
}

/** A URL in a read-only field (selected on focus) with a Copy button. */
function CopyableUrl({ label, url, testId }: { label: string; url: string; testId: string }) {
  return (
    <div class="copy-url">
      <span>{label}</span>
      <div class="copy-row">
        <input readOnly value={url} data-testid={testId} onFocus={(event) => event.currentTarget.select()} />
        <CopyButton text={url} />
      </div>
    </div>
  );
}

/**
 * The iframe snippet to put the video on a site: delivery's own oEmbed answer for the embed URL (the
 * one place that writes the iframe), read across origins (delivery answers CORS).
 */
function EmbedSnippet({ orgId, video, urls }: { orgId: string; video: VideoDetails; urls: DeliveryUrlsQuery }) {
  const embedUrl = urls.data ? urlsOf(orgId, video, urls.data).embed : undefined;
  const snippet = useQuery({
    queryKey: ['embed-snippet', embedUrl, video.name],
    queryFn: async () => {
      const origin = urls.data!.origin;
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
  const error = urls.error ?? snippet.error;
  return (
    <section class="card" data-testid="embed-snippet">
      <h2>Embed</h2>
      {embedUrl && snippet.data ? (
        <>
          <p>
            Embed URL: <code data-testid="embed-url">{embedUrl}</code> <CopyButton text={embedUrl} />
          </p>
          <p>
            <code data-testid="embed-html">{snippet.data}</code> <CopyButton text={snippet.data} />
          </p>
        </>
      ) : (
        <p class="muted">{error ? (error as Error).message : 'Preparing the snippet…'}</p>
      )}
    </section>
  );
}

function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={() =>
        void navigator.clipboard.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        )
      }
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

/** Share links: create (expiry, view limit, viewer), list with their views, revoke. */
function ShareLinks({ videoPath, orgId, videoId }: { videoPath: string; orgId: string; videoId: string }) {
  const links = useList(['share-links', orgId, videoId], () => api<{ shareLinks: ShareLink[] }>(`${videoPath}/share`));
  const [expirationHours, setExpirationHours] = useState('168');
  const [maxViews, setMaxViews] = useState('');
  const [viewerEmail, setViewerEmail] = useState('');
  const toast = useToast();
  const create = useListChange(
    links,
    (params: CreateShareLinkParams) => api<ShareLink>(`${videoPath}/share`, json('POST', params)),
    () => toast('Share link created.'),
  );
  const revoke = useListChange(
    links,
    (linkId: string) => api(`${videoPath}/share/${encodeURIComponent(linkId)}`, { method: 'DELETE' }),
    () => toast('Share link revoked.'),
  );

  return (
    <section class="card" data-testid="share-links">
      <h2>Share links</h2>
      <form
        class="share-form"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate({
            expirationHours: Number(expirationHours),
            ...(maxViews ? { maxViews: Number(maxViews) } : {}),
            ...(viewerEmail.trim() ? { viewerEmail: viewerEmail.trim() } : {}),
          });
        }}
      >
        <label>
          Expires after
          <select value={expirationHours} onChange={(event) => setExpirationHours(event.currentTarget.value)}>
            <option value="1">1 hour</option>
            <option value="24">1 day</option>
            <option value="168">7 days</option>
            <option value="720">30 days</option>
            <option value="8760">1 year</option>
          </select>
        </label>
        <label>
          Max views
          <input
            type="number"
            min={1}
            value={maxViews}
            placeholder="no limit"
            onInput={(event) => setMaxViews(event.currentTarget.value)}
          />
        </label>
        <label>
          Viewer email
          <input type="email" value={viewerEmail} onInput={(event) => setViewerEmail(event.currentTarget.value)} />
        </label>
        <button type="submit" class="primary" data-testid="share-create" disabled={create.isPending}>
          Create link
        </button>
      </form>
      {create.error && <p class="error">{(create.error as Error).message}</p>}
      {create.data && (
        <div class="secret" data-testid="share-created">
          <div class="share-url">
            Watch page: <code data-testid="share-url">{create.data.shareUrl}</code>{' '}
            <CopyButton text={create.data.shareUrl} />
          </div>
          <div class="share-url">
            Direct HLS: <code>{create.data.directUrl}</code> <CopyButton text={create.data.directUrl} />
          </div>
        </div>
      )}
      {links.list.data && links.list.data.shareLinks.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Link</th>
              <th>Views</th>
              <th>Expires</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {links.list.data.shareLinks.map((link) => (
              <tr key={link.id} data-testid="share-link-row">
                <td>
                  <a href={link.shareUrl} target="_blank" rel="noreferrer">
                    {link.viewerEmail ?? link.id}
                  </a>
                </td>
                <td>
                  {link.views}
                  {link.maxViews !== null ? ` / ${link.maxViews}` : ''}
                </td>
                <td>{new Date(link.expiresAt).toLocaleString()}</td>
                <td>
                  <button type="button" class="link" onClick={() => revoke.mutate(link.id)}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
