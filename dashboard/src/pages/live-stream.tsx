// One live stream's view (issue 56, item 6): the Live page's card (what an encoder needs, the
// stream's actions), a preview of the stream as a viewer gets it while it broadcasts, with how far
// behind live that viewer is, and the stream's broadcasts, each a video (the videos list's
// `liveStreamId` filter). The stream is read again every few seconds: whether it broadcasts changes
// with its publisher, not through the API.
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useQuery } from '@tanstack/react-query';
import type { VideoList } from '@kino/sdk';
import { api, API_ROOT, json } from '../api.ts';
import { useSession } from '../session.tsx';
import { ErrorNote } from '../components/error-note.tsx';
import { Skeleton } from '../components/skeleton.tsx';
import { firstError, useList, useListChange } from '../use-list.ts';
import { StreamCard, type LiveStream } from './live.tsx';
import { StatusBadge } from './videos/status-badge.tsx';
import './videos/videos.css';

/** How often the stream and its broadcasts are read again. */
const refreshMs = 5_000;

export function LiveStreamPage({ liveStreamId }: { liveStreamId?: string }) {
  const session = useSession();
  const orgId = session.org!.id;
  const id = liveStreamId!;
  const streams = `${API_ROOT}/${orgId}/live-streams`;
  const path = `${streams}/${encodeURIComponent(id)}`;
  const { route } = useLocation();
  const stream = useList(['live-stream', orgId, id], () => api<LiveStream>(path), { refetchInterval: refreshMs });
  const broadcasts = useList(
    ['live-broadcasts', orgId, id],
    () => api<VideoList>(`${API_ROOT}/${orgId}/videos?liveStreamId=${encodeURIComponent(id)}&pageSize=20`),
    { refetchInterval: refreshMs },
  );
  const act = useListChange(stream, async ({ action, method }: { action: string; method: 'POST' | 'DELETE' }) => {
    await api(`${streams}/${action}`, { method });
    // A deleted stream has no view left: back to the list.
    if (method === 'DELETE') route('/dashboard/live');
  });
  const current = stream.list.data;

  return (
    <section>
      <p>
        <a href="/dashboard/live">← Live streams</a>
      </p>
      <h1>{current?.name ?? 'Live stream'}</h1>
      <ErrorNote error={firstError(act, stream.list, broadcasts.list)} />
      {stream.list.isPending && <Skeleton lines={4} label="Loading the live stream" />}
      {current && (
        <>
          <StreamCard stream={current} act={(action, method = 'POST') => act.mutate({ action, method })} />
          <h2>Preview</h2>
          {current.status === 'active' ? (
            <LivePreview stream={current} path={path} />
          ) : (
            <p class="muted" data-testid="preview-idle">
              {current.status === 'disabled'
                ? 'This stream is disabled: enable it to broadcast.'
                : 'Not broadcasting: the preview plays while an encoder publishes to this stream.'}
            </p>
          )}
        </>
      )}
      <h2>Broadcasts</h2>
      <p class="muted">Each broadcast is a video of this environment: it plays live, then as a recording.</p>
      {broadcasts.list.isPending && <Skeleton lines={3} label="Loading the broadcasts" />}
      {broadcasts.list.data && (
        <table data-testid="broadcasts">
          <thead>
            <tr>
              <th>Name</th>
              <th>Status</th>
              <th>Duration</th>
              <th>Started</th>
            </tr>
          </thead>
          <tbody>
            {broadcasts.list.data.videos.map((video) => (
              <tr key={video.id} data-testid="broadcast-row" data-video-id={video.id}>
                <td>
                  <a href={`/dashboard/videos/${video.id}`}>{video.name}</a>
                </td>
                <td>
                  <StatusBadge status={video.status} />
                </td>
                <td>{video.status === 'ready' ? video.duration : ''}</td>
                <td title={video.createdAt}>{new Date(video.createdAt).toLocaleString()}</td>
              </tr>
            ))}
            {broadcasts.list.data.videos.length === 0 && (
              <tr>
                <td colSpan={4} class="muted">
                  No broadcasts yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Resolves once `url` answers 200 (asked every second), or when `stopped` says so. */
async function untilPlayable(url: string, stopped: () => boolean): Promise<void> {
  while (!stopped()) {
    const response = await fetch(url).catch(() => undefined);
    if (response?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/**
 * The stream as a viewer gets it: a public stream's master, a private one's signed URL (its token
 * bound to the stream), in `<kino-player>`, muted and playing; under it how far behind live the
 * picture showing is (now minus its EXT-X-PROGRAM-DATE-TIME: the time it was published, as ingest
 * saw the publish: docs/decisions/live.md, "The program date-time"), read every second.
 */
function LivePreview({ stream, path }: { stream: LiveStream; path: string }) {
  const src = useQuery({
    queryKey: ['live-playback', stream.liveStreamId, stream.playback.master],
    queryFn: async () =>
      stream.playback.master ??
      (await api<{ signed_url: string }>(`${path}/playback-url`, json('POST', { expiration: '4h' }))).signed_url,
    // A fresh URL well before its 4 h token expires; never refetched under a playing preview otherwise.
    staleTime: 3 * 3600_000,
    refetchOnWindowFocus: false,
  });
  const box = useRef<HTMLDivElement>(null);
  const [behindSeconds, setBehindSeconds] = useState<number | null>(null);

  useEffect(() => {
    const url = src.data;
    if (!url) return;
    let stopped = false;
    let player: HTMLElementTagNameMap['kino-player'] | undefined;
    // The element is made once its module (and hls.js in it) has loaded, as the video page's player,
    // and once the broadcast's master exists: the farm writes it when every rendition has started,
    // seconds after the stream turns active, and a player given a missing master stops there.
    void Promise.all([import('@kino/player'), untilPlayable(url, () => stopped)]).then(() => {
      if (stopped || !box.current) return;
      player = document.createElement('kino-player');
      player.dataset.testid = 'live-preview';
      player.setAttribute('muted', '');
      player.setAttribute('autoplay', '');
      player.setAttribute('aria-label', `Preview of ${stream.name}`);
      player.setAttribute('src', url);
      box.current.replaceChildren(player);
    });
    const timer = setInterval(() => {
      const shown = player?.programDateTime;
      setBehindSeconds(shown ? Math.max(0, (Date.now() - shown.getTime()) / 1000) : null);
    }, 1000);
    return () => {
      stopped = true;
      clearInterval(timer);
      player?.remove();
    };
  }, [src.data]);

  return (
    <div class="live-preview">
      <ErrorNote error={src.error} />
      <div ref={box} class="player-box" />
      <p data-testid="live-latency" data-seconds={behindSeconds ?? ''}>
        {behindSeconds === null
          ? 'Behind live: measuring once the picture plays…'
          : `Behind live: ${behindSeconds.toFixed(1)} s (by the stream's program date-time)`}
      </p>
    </div>
  );
}
