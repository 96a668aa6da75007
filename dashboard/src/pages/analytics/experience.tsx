// The analytics page's "Viewer experience" section (issue 58): what viewers lived through, from the
// views players report: startup time p50/p95 and rebuffering, failures and exits before start per
// day, and a table by video, browser, OS or rendition. It reads `.../analytics/experience` of the
// page's scope (the organization or the environment) over the page's range.
import { useMemo, useState } from 'preact/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ExperienceGrouping, ExperienceRecord } from '@kino/sdk';
import { api, rateLimitWaitMs } from '../../api.ts';
import { Chart } from '../../components/charts/chart.tsx';
import { ErrorNote } from '../../components/error-note.tsx';
import { experienceRatesOption, experienceStartupOption } from '../../components/charts/chart-options.ts';

type TableGrouping = Exclude<ExperienceGrouping, 'day'>;
const groupings: Record<TableGrouping, string> = {
  video: 'Video',
  browser: 'Browser',
  os: 'OS',
  rendition: 'Rendition',
};

const ms = (value: number | null) => (value === null ? '—' : `${Math.round(value).toLocaleString()} ms`);
const percent = (value: number) => `${value.toFixed(2)} %`;

/**
 * Views arrive once they end or go quiet (minutes), and the page's other charts already spend most
 * of the analytics limit (500 an hour) refetching every 30 s: these two refetch every 5 minutes
 * (after a 429, once its window ends).
 */
const refetchInterval = (query: { state: { error: unknown } }) => rateLimitWaitMs(query.state.error) ?? 300_000;

export function ExperienceSection({
  scopePath,
  dates,
}: {
  /** The organization's or environment's API path. */
  scopePath: string;
  /** `startDate=…&endDate=…` */
  dates: string;
}) {
  const [grouping, setGrouping] = useState<TableGrouping>('browser');
  const read = (groupBy: ExperienceGrouping) => () =>
    api<{ experience: ExperienceRecord[] }>(`${scopePath}/analytics/experience?${dates}&groupBy=${groupBy}`);
  const days = useQuery({
    queryKey: ['analytics-experience', scopePath, dates, 'day'],
    queryFn: read('day'),
    refetchInterval,
  });
  const groups = useQuery({
    queryKey: ['analytics-experience', scopePath, dates, grouping],
    queryFn: read(grouping),
    refetchInterval,
  });
  const records = days.data?.experience;
  const views = records?.reduce((sum, d) => sum + d.views, 0);
  const startupOption = useMemo(() => records && experienceStartupOption(records), [records]);
  const ratesOption = useMemo(() => records && experienceRatesOption(records), [records]);

  return (
    <section class="card" data-testid="experience">
      <h2>Viewer experience</h2>
      <ErrorNote error={days.error} />
      {views === 0 && (
        <p class="muted" data-testid="experience-empty">
          No views reported in this range. Players report each view (startup time, stalls, errors) once it ends: this
          section fills in as people watch with Kino's player.
        </p>
      )}
      {views !== undefined && views > 0 && (
        <>
          <p class="muted" data-testid="experience-views" data-views={views}>
            {views.toLocaleString()} views in this range.
          </p>
          <div class="grid">
            <div>
              <h3>Video startup time</h3>
              {startupOption && <Chart option={startupOption} testId="experience-startup-chart" height={240} />}
            </div>
            <div>
              <h3>Rebuffering, failures and exits before start</h3>
              {ratesOption && <Chart option={ratesOption} testId="experience-rates-chart" height={240} />}
            </div>
          </div>
          <label>
            By{' '}
            <select
              value={grouping}
              data-testid="experience-grouping"
              onChange={(event) => setGrouping(event.currentTarget.value as TableGrouping)}
            >
              {Object.entries(groupings).map(([value, name]) => (
                <option key={value} value={value}>
                  {name}
                </option>
              ))}
            </select>
          </label>
          <ErrorNote error={groups.error} />
          {groups.data && (
            <table data-testid="experience-table">
              <thead>
                <tr>
                  <th>{groupings[grouping]}</th>
                  <th>Views</th>
                  <th>Startup p50</th>
                  <th>Startup p95</th>
                  <th>Rebuffering</th>
                  <th>Failures</th>
                  <th>Exits before start</th>
                </tr>
              </thead>
              <tbody>
                {groups.data.experience.map((g) => (
                  <tr key={g.key} data-key={g.key}>
                    <td>{grouping === 'rendition' ? `${g.key}p` : g.key}</td>
                    <td>{g.views.toLocaleString()}</td>
                    <td>{ms(g.startupMsP50)}</td>
                    <td>{ms(g.startupMsP95)}</td>
                    <td>{percent(g.rebufferPercent)}</td>
                    <td>{percent(g.failurePercent)}</td>
                    <td>{percent(g.exitsBeforeStartPercent)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      <p class="muted">
        Startup: from the viewer's play request to the first frame, over views that started. Rebuffering: time stalled
        over time watched. Failures: views ended by an error. Exits before start: views left before the first frame, of
        those where play was requested.
      </p>
    </section>
  );
}
