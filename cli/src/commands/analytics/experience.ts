import { Flags } from '@oclif/core';
import type { ExperienceGrouping, ExperienceRecord } from '@kino/sdk';
import type { Kino } from '@kino/sdk/node';
import {
  AnalyticsCommand,
  dateRangeFlags,
  scopeFlags,
  type AnalyticsScope,
  type Output,
} from '../../analytics-command.ts';

const groupings: Record<ExperienceGrouping, string> = {
  day: 'Day',
  video: 'Video',
  browser: 'Browser',
  os: 'OS',
  rendition: 'Resolution',
};

type Input = { flags: { 'group-by': ExperienceGrouping; video?: string; page?: number; 'page-size'?: number } };

export default class AnalyticsExperience extends AnalyticsCommand<ExperienceRecord[]> {
  static override description =
    'What viewers lived through: startup time (p50, p95), rebuffering, failures and exits before start (Mux Data’s definitions).';
  static override flags = {
    ...scopeFlags,
    ...dateRangeFlags,
    'group-by': Flags.option({ options: Object.keys(groupings) as ExperienceGrouping[], default: 'day' as const })({
      description: 'one row per day (every day of the range), video, browser, OS or rendition',
    }),
    video: Flags.string({ description: 'one video (its id) rather than the environment or organization' }),
    page: Flags.integer({ min: 1, description: 'grouped by anything but day: which page of keys (most viewed first)' }),
    'page-size': Flags.integer({ min: 1, max: 100, description: 'grouped by anything but day: keys a page (20)' }),
  };

  /** One video's path names no environment: --video needs none. */
  protected override readsEnvironment(flags: Input['flags'] & { 'all-envs'?: boolean }): boolean {
    return !flags.video && super.readsEnvironment(flags);
  }

  protected read(
    kino: Kino,
    { orgId, envId, startDate, endDate }: AnalyticsScope,
    { flags }: Input,
  ): Promise<ExperienceRecord[]> {
    const query = { startDate, endDate, groupBy: flags['group-by'], page: flags.page, pageSize: flags['page-size'] };
    return flags.video
      ? kino.analytics.experience(orgId, { videoId: flags.video, ...query })
      : kino.analytics.experience(orgId, { envId, ...query });
  }

  protected async show(records: ExperienceRecord[], { formatNumber, printTable }: Output, { flags }: Input) {
    const ms = (value: number | null) => (value === null ? '' : `${formatNumber(value)} ms`);
    const percent = (value: number) => `${value.toFixed(2)} %`;
    await printTable(
      records.map((r) => ({
        key: flags['group-by'] === 'rendition' ? `${r.key}p` : r.key,
        views: formatNumber(r.views),
        watch: formatNumber(r.watchTimeSeconds / 60),
        p50: ms(r.startupMsP50),
        p95: ms(r.startupMsP95),
        rebuffer: percent(r.rebufferPercent),
        perMinute: r.rebuffersPerMinute.toFixed(2),
        failures: percent(r.failurePercent),
        exits: percent(r.exitsBeforeStartPercent),
      })),
      [
        { key: 'key', name: groupings[flags['group-by']] },
        { key: 'views', name: 'Views', numeric: true },
        { key: 'watch', name: 'Watch min', numeric: true },
        { key: 'p50', name: 'Startup p50', numeric: true },
        { key: 'p95', name: 'Startup p95', numeric: true },
        { key: 'rebuffer', name: 'Rebuffering', numeric: true },
        { key: 'perMinute', name: 'Rebuffers/min', numeric: true },
        { key: 'failures', name: 'Failures', numeric: true },
        { key: 'exits', name: 'Exits before start', numeric: true },
      ],
      'no views in the period',
    );
  }
}
