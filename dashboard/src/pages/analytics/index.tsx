// Analytics: segments served per day stacked by HD, SD and LD, usage per environment, storage by
// quality tier, the resolution distribution, and one video's resolutions, over a date range kept in
// the page URL; and the viewer experience (experience.tsx). Each chart reads one of the API's
// analytics endpoints as it is (the organization's, or the current environment's where the API has
// that variant); chart-options.ts shapes them.
import { useMemo } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useQuery } from '@tanstack/react-query';
import type {
  DailyRecord,
  DistributionEntry,
  StorageRecord,
  UsageRecord,
  VideoList,
  VideoResolutions,
} from '@kino/sdk';
import { api, API_ROOT, rateLimitWaitMs } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { Chart } from '../../components/charts/chart.tsx';
import { ErrorNote } from '../../components/error-note.tsx';
import {
  dailySegmentsOption,
  dailyChartTotal,
  resolutionDistributionOption,
  storageByTierOption,
  usagePerEnvironmentOption,
  videoResolutionsOption,
} from '../../components/charts/chart-options.ts';
import { lastDays, rangeFromSearch, usageQueryFor, type DateRange } from './date-range.ts';
import { ExperienceSection } from './experience.tsx';
import '../videos/videos.css';

const presets = [7, 30, 90, 365] as const;

export function AnalyticsPage() {
  const session = useSession();
  const { url, route } = useLocation();
  const search = new URLSearchParams(url.split('?')[1] ?? '');
  const range = rangeFromSearch(url.split('?')[1] ?? '');
  const wholeOrg = search.get('scope') === 'org';
  const videoId = search.get('video') ?? '';
  const orgId = session.org!.id;
  const envId = session.env?.id;
  // The organization's endpoints, or the environment's (`/environments/{envID}` after the org).
  const scopePath = wholeOrg || !envId ? `${API_ROOT}/${orgId}` : `${API_ROOT}/${orgId}/environments/${envId}`;
  const dates = `startDate=${range.startDate}&endDate=${range.endDate}`;

  const show = (next: { range?: DateRange; wholeOrg?: boolean; videoId?: string }) => {
    const r = next.range ?? range;
    const params = new URLSearchParams({ from: r.startDate, to: r.endDate });
    if (next.wholeOrg ?? wholeOrg) params.set('scope', 'org');
    const video = next.videoId ?? videoId;
    if (video) params.set('video', video);
    route(`/dashboard/analytics?${params.toString()}`, true);
  };

  // Segments reach the rollups within a minute or so: refetch now and then while the page is open
  // (after a 429, once its limit's window ends).
  const live = { refetchInterval: (q: { state: { error: unknown } }) => rateLimitWaitMs(q.state.error) ?? 30_000 };
  const daily = useQuery({
    queryKey: ['analytics-daily', scopePath, dates],
    queryFn: () => api<{ dailyUsage: DailyRecord[] }>(`${scopePath}/analytics/daily?${dates}`),
    ...live,
  });
  const usage = useQuery({
    queryKey: ['analytics-usage', orgId, usageQueryFor(range)],
    queryFn: () => api<{ usage: UsageRecord[] }>(`${API_ROOT}/${orgId}/analytics/usage?${usageQueryFor(range)}`),
    ...live,
  });
  const storage = useQuery({
    queryKey: ['analytics-storage', scopePath],
    queryFn: () => api<{ storage: StorageRecord }>(`${scopePath}/analytics/storage`),
  });
  const distribution = useQuery({
    queryKey: ['analytics-distribution', scopePath, dates],
    queryFn: () =>
      api<{ distribution: DistributionEntry[] }>(`${scopePath}/analytics/resolution-distribution?${dates}`),
    ...live,
  });
  const videos = useQuery({
    queryKey: ['analytics-video-choices', orgId, envId],
    queryFn: () => api<VideoList>(`${API_ROOT}/${orgId}/environments/${envId}/videos?pageSize=100`),
    enabled: envId !== undefined,
  });
  const perVideo = useQuery({
    queryKey: ['analytics-video', orgId, videoId, dates],
    queryFn: () =>
      api<VideoResolutions>(`${API_ROOT}/${orgId}/videos/${encodeURIComponent(videoId)}/analytics/resolution?${dates}`),
    enabled: videoId !== '',
    ...live,
  });

  const environmentNames = useMemo(
    () => new Map(session.org!.environments.map((env) => [env.id, env.name])),
    [session.org],
  );
  const dailyOption = useMemo(() => daily.data && dailySegmentsOption(daily.data.dailyUsage), [daily.data]);
  const usageOption = useMemo(
    () => usage.data && usagePerEnvironmentOption(usage.data.usage, environmentNames),
    [usage.data, environmentNames],
  );
  const storageOption = useMemo(() => storage.data && storageByTierOption(storage.data.storage), [storage.data]);
  const distributionOption = useMemo(
    () => distribution.data && resolutionDistributionOption(distribution.data.distribution),
    [distribution.data],
  );
  const perVideoOption = useMemo(
    () => perVideo.data && videoResolutionsOption(perVideo.data.resolutions),
    [perVideo.data],
  );
  const dailyTotal = daily.data && dailyChartTotal(daily.data.dailyUsage);

  const failure = (query: { error: unknown }) => <ErrorNote error={query.error} />;

  return (
    <section class="analytics-page">
      <h1>Analytics</h1>
      <form class="inline range" onSubmit={(event) => event.preventDefault()}>
        <label>
          From
          <input
            type="date"
            value={range.startDate}
            data-testid="range-from"
            onChange={(event) => show({ range: { ...range, startDate: event.currentTarget.value } })}
          />
        </label>
        <label>
          To
          <input
            type="date"
            value={range.endDate}
            data-testid="range-to"
            onChange={(event) => show({ range: { ...range, endDate: event.currentTarget.value } })}
          />
        </label>
        {presets.map((days) => (
          <button key={days} type="button" onClick={() => show({ range: lastDays(days) })}>
            Last {days} days
          </button>
        ))}
        <label>
          Scope
          <select
            value={wholeOrg ? 'org' : 'env'}
            data-testid="analytics-scope"
            onChange={(event) => show({ wholeOrg: event.currentTarget.value === 'org' })}
          >
            <option value="env">Environment {session.env?.name ?? ''}</option>
            <option value="org">Whole organization</option>
          </select>
        </label>
      </form>

      <section class="card">
        <h2>Segments served per day</h2>
        {failure(daily)}
        {dailyOption && (
          <>
            <Chart option={dailyOption} testId="daily-chart" total={dailyTotal} />
            {dailyTotal === 0 && <p class="muted">No segments served in this range.</p>}
          </>
        )}
        <p class="muted">
          A segment is 6 seconds of video delivered to a player. HD: 1080p and above; SD: 481p to 1079p (720p); LD: 480p
          and below.
        </p>
      </section>

      <ExperienceSection scopePath={scopePath} dates={dates} />

      <div class="grid">
        <section class="card">
          <h2>Usage per environment</h2>
          {failure(usage)}
          {usageOption && <Chart option={usageOption} testId="usage-chart" />}
          {usage.data && (
            <table>
              <thead>
                <tr>
                  <th>Environment</th>
                  <th>Videos</th>
                  <th>Minutes</th>
                  <th>Segments (all time)</th>
                  <th>Last served</th>
                </tr>
              </thead>
              <tbody>
                {usage.data.usage.map((record) => (
                  <tr key={record.envId}>
                    <td>{environmentNames.get(record.envId) ?? record.envId}</td>
                    <td>{record.totalVideos}</td>
                    <td>{(record.totalVideoDurationSeconds / 60).toFixed(1)}</td>
                    <td>{record.totalSegmentsServed}</td>
                    <td>{record.lastSegmentServedValid ? new Date(record.lastSegmentServed).toLocaleString() : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section class="card">
          <h2>Storage by quality tier</h2>
          {failure(storage)}
          {storageOption && <Chart option={storageOption} testId="storage-chart" />}
          {storage.data && (
            <p class="muted">
              {storage.data.storage.totalVideos} videos, {(storage.data.storage.totalDurationSeconds / 60).toFixed(1)}{' '}
              minutes in all (now, whatever the range).
            </p>
          )}
        </section>
        <section class="card">
          <h2>Resolution distribution</h2>
          {failure(distribution)}
          {distributionOption && <Chart option={distributionOption} testId="distribution-chart" />}
          {distribution.data && !distributionOption && (
            <p class="muted" data-testid="distribution-empty">
              No segments served in this range: the chart fills in once videos are played.
            </p>
          )}
        </section>
        <section class="card" data-testid="per-video">
          <h2>One video</h2>
          <select
            value={videoId}
            aria-label="Video"
            data-testid="analytics-video"
            onChange={(event) => show({ videoId: event.currentTarget.value })}
          >
            <option value="">Choose a video…</option>
            {videos.data?.videos.map((video) => (
              <option key={video.id} value={video.id}>
                {video.name}
              </option>
            ))}
            {videoId && !videos.data?.videos.some((video) => video.id === videoId) && (
              <option value={videoId}>{videoId}</option>
            )}
          </select>
          {failure(perVideo)}
          {perVideo.data && (
            <>
              <dl class="facts">
                <dt>Segments served</dt>
                <dd>{perVideo.data.summary.totalSegmentsServed}</dd>
                <dt>Days served</dt>
                <dd>{perVideo.data.summary.totalDaysServed}</dd>
                <dt>Renditions</dt>
                <dd>{perVideo.data.summary.availableResolutions}</dd>
                <dt>Most popular</dt>
                <dd>
                  {perVideo.data.summary.mostPopularResolutionValid
                    ? `${perVideo.data.summary.mostPopularResolution}p`
                    : '—'}
                </dd>
              </dl>
              {perVideoOption ? (
                <Chart option={perVideoOption} testId="video-resolution-chart" height={220} />
              ) : (
                <p class="muted">Not played in this range.</p>
              )}
            </>
          )}
        </section>
      </div>
    </section>
  );
}
