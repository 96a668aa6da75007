// The video page's Analytics tab: the last 30 days of this video's delivery (segments served, days,
// the most played rendition, the segments per height), the same numbers as the analytics page's "One
// video" card, which the link opens with this video chosen for other ranges.
import { useMemo } from 'preact/hooks';
import { useQuery } from '@tanstack/react-query';
import type { VideoResolutions } from '@kino/sdk';
import { api } from '../../api.ts';
import { Chart } from '../../components/charts/chart.tsx';
import { Skeleton } from '../../components/skeleton.tsx';
import { videoResolutionsOption } from '../../components/charts/chart-options.ts';
import { lastDays } from '../analytics/date-range.ts';

export function VideoAnalytics({ videoPath, videoId }: { videoPath: string; videoId: string }) {
  const range = lastDays(30);
  const dates = `startDate=${range.startDate}&endDate=${range.endDate}`;
  const served = useQuery({
    queryKey: ['video-analytics', videoPath, dates],
    queryFn: () => api<VideoResolutions>(`${videoPath}/analytics/resolution?${dates}`),
  });
  const option = useMemo(() => served.data && videoResolutionsOption(served.data.resolutions), [served.data]);
  const summary = served.data?.summary;
  return (
    <section aria-labelledby="video-analytics-title" data-testid="video-analytics">
      <h2 id="video-analytics-title">The last 30 days</h2>
      {served.error && <p class="error">{(served.error as Error).message}</p>}
      {!summary && !served.error && <Skeleton lines={4} />}
      {summary && (
        <dl class="facts">
          <dt>Segments served</dt>
          <dd data-testid="video-segments-served">{summary.totalSegmentsServed}</dd>
          <dt>Days served</dt>
          <dd>{summary.totalDaysServed}</dd>
          <dt>Most played</dt>
          <dd>{summary.mostPopularResolutionValid ? `${summary.mostPopularResolution}p` : '—'}</dd>
        </dl>
      )}
      {summary &&
        (option ? (
          <Chart option={option} testId="video-resolution-chart" height={220} />
        ) : (
          <p class="muted">Not played in the last 30 days: the chart fills in once viewers play it.</p>
        ))}
      <p>
        <a href={`/dashboard/analytics?video=${encodeURIComponent(videoId)}`}>Other ranges on the analytics page</a>
      </p>
    </section>
  );
}
