// Live streams of the current environment (issue 56): create one, and for each the RTMP server, the
// stream key and the SRT URL to copy into an encoder, where it plays, and its actions (reset the key,
// disable or enable, delete); through the ordinary API (/v1/api/{orgID}/.../live-streams). Each
// stream's name opens its own view (live-stream.tsx): a preview and its broadcasts.
import { useState } from 'preact/hooks';
import { liveStreamLatencies, type LiveStreamLatency, type LiveStreamStatus } from '@kino/proto/contract';
import { api, API_ROOT, json } from '../api.ts';
import { useSession } from '../session.tsx';
import { when } from '../components/secret-once.tsx';
import { ErrorNote } from '../components/error-note.tsx';
import { Skeleton } from '../components/skeleton.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { firstError, useList, useListChange } from '../use-list.ts';

export interface LiveStream {
  liveStreamId: string;
  name: string;
  status: LiveStreamStatus;
  latency: LiveStreamLatency;
  allowPublicAccess: boolean;
  record: boolean;
  streamKey: string;
  ingest: { rtmp: string; srt: string };
  playback: { master: string | null };
  createdAt: string;
}

/** A value to paste into an encoder, with a button that copies it. */
function Copyable({
  label,
  value,
  testId,
  secret,
}: {
  label: string;
  value: string;
  testId: string;
  secret?: boolean;
}) {
  const [copied, setCopied] = useState(false);
  const [shown, setShown] = useState(!secret);
  return (
    <div class="copyable">
      <span class="muted">{label}</span> <code data-testid={testId}>{shown ? value : '•'.repeat(12)}</code>{' '}
      {secret && (
        <button type="button" aria-label={`${shown ? 'Hide' : 'Show'} ${label}`} onClick={() => setShown(!shown)}>
          {shown ? 'Hide' : 'Show'}
        </button>
      )}{' '}
      <button
        type="button"
        aria-label={`Copy ${label}`}
        onClick={() => {
          navigator.clipboard.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          );
        }}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

/**
 * One stream: what an encoder needs, where it plays, and its actions. `act` takes a path under
 * `.../live-streams/`. `href`: its name links there (the list's cards open the stream's view).
 */
export function StreamCard({
  stream,
  act,
  href,
}: {
  stream: LiveStream;
  act(path: string, method?: 'POST' | 'DELETE'): void;
  href?: string;
}) {
  const id = stream.liveStreamId;
  return (
    <article class="card" data-testid={`live-stream-${id}`}>
      <h2>
        {href ? <a href={href}>{stream.name}</a> : stream.name}{' '}
        <span class={`status status-${stream.status}`} data-testid="live-stream-status">
          {stream.status}
        </span>
      </h2>
      <p class="muted">
        {id} · latency {stream.latency} · {stream.allowPublicAccess ? 'public' : 'private'} ·{' '}
        {stream.record ? 'recorded' : 'not recorded'} · created {when(stream.createdAt)}
      </p>
      <Copyable label="RTMP server" value={stream.ingest.rtmp} testId="rtmp-url" />
      <Copyable label="Stream key" value={stream.streamKey} testId="stream-key" secret />
      <Copyable label="SRT URL" value={stream.ingest.srt} testId="srt-url" secret />
      {stream.playback.master && <Copyable label="Playback" value={stream.playback.master} testId="playback-url" />}
      <p>
        <button type="button" data-testid="reset-key" onClick={() => act(`${id}/reset-stream-key`)}>
          Reset stream key
        </button>{' '}
        <button
          type="button"
          data-testid="toggle-stream"
          onClick={() => act(`${id}/${stream.status === 'disabled' ? 'enable' : 'disable'}`)}
        >
          {stream.status === 'disabled' ? 'Enable' : 'Disable'}
        </button>{' '}
        <button
          type="button"
          data-testid="delete-stream"
          disabled={stream.status === 'active'}
          title={stream.status === 'active' ? 'Disable it first: it is broadcasting' : undefined}
          onClick={() => {
            if (confirm(`Delete ${stream.name}? Its key stops working; its recordings stay.`)) act(id, 'DELETE');
          }}
        >
          Delete
        </button>
      </p>
    </article>
  );
}

export function LivePage() {
  const session = useSession();
  const org = session.org!;
  const env = session.env;
  const collection = `${API_ROOT}/${org.id}/environments/${env?.id}/live-streams`;
  const streams = useList(['live-streams', org.id, env?.id], () => api<{ liveStreams: LiveStream[] }>(collection), {
    enabled: Boolean(env),
  });
  const [name, setName] = useState('');
  const [isPublic, setIsPublic] = useState(false);
  const [latency, setLatency] = useState<LiveStreamLatency>('low');
  const create = useListChange(
    streams,
    () => api<LiveStream>(collection, json('POST', { name: name || undefined, allowPublicAccess: isPublic, latency })),
    () => setName(''),
  );
  const act = useListChange(streams, ({ path, method }: { path: string; method: 'POST' | 'DELETE' }) =>
    api(`${API_ROOT}/${org.id}/live-streams/${path}`, { method }),
  );
  if (!env) return <p class="muted">This organization has no environment yet.</p>;

  return (
    <section>
      <h1>Live streams</h1>
      <p class="muted">
        An encoder (OBS, ffmpeg) publishes to a stream of {env.name} over RTMP or SRT with its stream key; each
        broadcast becomes a video.
      </p>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <label>
          Name
          <input
            data-testid="live-name"
            placeholder="Live stream"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <label>
          Latency
          <select
            data-testid="live-latency"
            value={latency}
            onChange={(e) => setLatency(e.currentTarget.value as LiveStreamLatency)}
          >
            {liveStreamLatencies.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>
            <input
              type="checkbox"
              data-testid="live-public"
              checked={isPublic}
              onChange={(e) => setIsPublic(e.currentTarget.checked)}
            />{' '}
            Public
          </span>
        </label>
        <button type="submit" data-testid="create-live-stream" disabled={create.isPending}>
          Create stream
        </button>
      </form>
      <ErrorNote error={firstError(create, act, streams.list)} />
      {streams.list.isPending && <Skeleton lines={3} label="Loading the live streams" />}
      {streams.list.data?.liveStreams.length === 0 && (
        <EmptyState title="No live streams yet" command="kino live create --name 'Sunday service' --public">
          Create a stream above, then point OBS or ffmpeg at its RTMP server with its key. Or from a terminal:
        </EmptyState>
      )}
      {streams.list.data?.liveStreams.map((stream) => (
        <StreamCard
          key={stream.liveStreamId}
          stream={stream}
          href={`/dashboard/live/${stream.liveStreamId}`}
          act={(path, method = 'POST') => act.mutate({ path, method })}
        />
      ))}
    </section>
  );
}
