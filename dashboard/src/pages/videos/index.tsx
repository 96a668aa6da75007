// The videos of the current environment: a table with search, status filter, date range, sort and
// paging, which are the API's list query parameters exactly (list-query.ts), kept in the page URL.
// The table is read again when a video of the environment changes (the live updates, live-updates.ts),
// never on a timer. Uploads start from the panel above it.
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Video, VideoList } from '@kino/sdk';
import { videoStatuses } from '@kino/proto/contract';
import { api, API_ROOT } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { UploadPanel } from '../../components/upload/upload-panel.tsx';
import { Skeleton } from '../../components/skeleton.tsx';
import { ErrorNote } from '../../components/error-note.tsx';
import { StatusBadge } from './status-badge.tsx';
import { listQueryString, listStateFromSearch, pageSizes, sortedBy, type VideoListState } from './list-query.ts';
import './videos.css';

const columnLabels: Record<VideoListState['sortBy'], string> = {
  name: 'Name',
  status: 'Status',
  duration: 'Duration',
  created_at: 'Created',
};

export function VideosPage() {
  const session = useSession();
  const { url, route } = useLocation();
  const queryClient = useQueryClient();
  const state = listStateFromSearch(url.split('?')[1] ?? '');
  const [search, setSearch] = useState(state.search ?? '');
  const [uploading, setUploading] = useState(false);
  const orgId = session.org!.id;
  const envId = session.env?.id;

  const show = (next: VideoListState) => {
    const query = listQueryString(next);
    route(`/dashboard/videos${query ? `?${query}` : ''}`, true);
  };
  const query = listQueryString(state);
  const videos = useQuery({
    queryKey: ['videos', orgId, envId, query],
    queryFn: () => api<VideoList>(`${API_ROOT}/${orgId}/environments/${envId}/videos${query ? `?${query}` : ''}`),
    enabled: envId !== undefined,
    placeholderData: keepPreviousData,
  });

  if (!envId) return <p>This organization has no environment yet: create one under Environments.</p>;
  const pagination = videos.data?.pagination;

  const header = (column: VideoListState['sortBy']) => (
    <th>
      <button
        type="button"
        class="link sort"
        data-testid={`sort-${column}`}
        onClick={() => show(sortedBy(state, column))}
      >
        {columnLabels[column]}
        {state.sortBy === column ? (state.sortDir === 'asc' ? ' ▲' : ' ▼') : ''}
      </button>
    </th>
  );

  return (
    <section class="videos-page">
      <div class="page-title">
        <h1>Videos</h1>
        <button type="button" class="primary" data-testid="upload-open" onClick={() => setUploading(!uploading)}>
          {uploading ? 'Close upload' : 'Upload video'}
        </button>
      </div>
      {uploading && (
        <UploadPanel
          orgId={orgId}
          envId={envId}
          onProcessing={() => void queryClient.invalidateQueries({ queryKey: ['videos', orgId, envId] })}
        />
      )}
      <form
        class="inline filters"
        onSubmit={(event) => {
          event.preventDefault();
          show({ ...state, search: search.trim() || undefined, page: 1 });
        }}
      >
        <label>
          Search names
          <input
            type="search"
            value={search}
            data-testid="video-search"
            onInput={(event) => setSearch(event.currentTarget.value)}
          />
        </label>
        <label>
          Status
          <select
            value={state.status ?? ''}
            data-testid="status-filter"
            onChange={(event) =>
              show({ ...state, status: (event.currentTarget.value || undefined) as VideoListState['status'], page: 1 })
            }
          >
            <option value="">Any</option>
            {videoStatuses.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </label>
        <label>
          Created from
          <input
            type="date"
            value={state.from ?? ''}
            onChange={(event) => show({ ...state, from: event.currentTarget.value || undefined, page: 1 })}
          />
        </label>
        <label>
          to
          <input
            type="date"
            value={state.to ?? ''}
            onChange={(event) => show({ ...state, to: event.currentTarget.value || undefined, page: 1 })}
          />
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorNote error={videos.error} testId="videos-error" />
      {/* Without a list, the message alone: no empty table under it. */}
      {(videos.data || !videos.error) && (
        <table class="videos" data-testid="videos-table">
          <thead>
            <tr>
              <th />
              {header('name')}
              {header('status')}
              {header('duration')}
              <th>Quality</th>
              <th>Access</th>
              <th>Served</th>
              {header('created_at')}
            </tr>
          </thead>
          <tbody>
            {videos.data?.videos.map((video) => (
              <VideoRow key={video.id} video={video} />
            ))}
            {videos.data?.videos.length === 0 && (
              <tr>
                <td colSpan={8} class="muted">
                  No videos
                  {state.search || state.status || state.from || state.to ? ' match these filters' : ' yet: upload one'}
                  .
                </td>
              </tr>
            )}
          </tbody>
        </table>
      )}
      {videos.isPending && <Skeleton lines={5} label="Loading the videos" />}
      {pagination && (
        <div class="paging" data-testid="paging">
          <button
            type="button"
            disabled={!pagination.hasPrevious}
            onClick={() => show({ ...state, page: state.page - 1 })}
          >
            ← Previous
          </button>
          <span>
            Page {pagination.page} of {Math.max(1, pagination.totalPages)} · {pagination.total} video
            {pagination.total === 1 ? '' : 's'}
          </span>
          <button type="button" disabled={!pagination.hasNext} onClick={() => show({ ...state, page: state.page + 1 })}>
            Next →
          </button>
          <label>
            Per page{' '}
            <select
              value={state.pageSize}
              onChange={(event) => show({ ...state, pageSize: Number(event.currentTarget.value), page: 1 })}
            >
              {pageSizes.map((size) => (
                <option key={size} value={size}>
                  {size}
                </option>
              ))}
            </select>
          </label>
        </div>
      )}
    </section>
  );
}

function VideoRow({ video }: { video: Video }) {
  const href = `/dashboard/videos/${video.id}`;
  return (
    <tr data-testid="video-row" data-video-id={video.id}>
      <td class="thumb">
        {video.thumbnailUrl ? <img src={video.thumbnailUrl} alt="" loading="lazy" /> : <span class="no-thumb" />}
      </td>
      <td>
        <a href={href}>{video.name}</a>
      </td>
      <td>
        <StatusBadge status={video.status} />
      </td>
      <td>{video.duration}</td>
      <td>{video.videoQuality}</td>
      <td>{video.allowPublicAccess ? 'public' : 'private'}</td>
      <td>{video.served}</td>
      <td title={video.createdAt}>{new Date(video.createdAt).toLocaleString()}</td>
    </tr>
  );
}
