import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import type {
  DailyRecord,
  DistributionEntry,
  ExperienceRecord,
  ResolutionEntry,
  StorageRecord,
  UsageRecord,
} from '@kino/sdk';
import {
  bandStyles,
  dailySegmentsOption,
  dailyChartTotal,
  experienceRatesOption,
  experienceStartupOption,
  resolutionDistributionOption,
  storageByTierOption,
  usagePerEnvironmentOption,
  videoResolutionsOption,
} from './chart-options.ts';

interface Series {
  name: string;
  type: string;
  stack?: string;
  data: Array<number | null | { value: number; itemStyle: { color: string } }>;
}
const seriesOf = (option: object) => (option as { series: Series[] }).series;
const categoriesOf = (option: object) => (option as { xAxis: { data: string[] } }).xAxis.data;

const day = (date: string, hd: number, sd: number, ld: number): DailyRecord => ({
  deliveryDate: `${date}T00:00:00Z`,
  segmentsServed: hd + sd + ld,
  uniqueVideosServed: 1,
  hdSegments: hd,
  sdSegments: sd,
  ldSegments: ld,
});

describe('dailySegmentsOption', () => {
  it('stacks HD, SD and LD per day, in date order as the API gives them', () => {
    const option = dailySegmentsOption([day('2026-11-22', 0, 0, 0), day('2026-11-23', 3, 5, 7)]);
    assert.deepEqual(categoriesOf(option), ['2026-11-22', '2026-11-23']);
    const series = seriesOf(option);
    assert.deepEqual(
      series.map((s) => s.name),
      [bandStyles.hd.label, bandStyles.sd.label, bandStyles.ld.label],
    );
    assert.ok(series.every((s) => s.type === 'bar' && s.stack === 'segments'));
    assert.deepEqual(
      series.map((s) => s.data),
      [
        [0, 3],
        [0, 5],
        [0, 7],
      ],
    );
  });

  it('names the bands by the heights the API sums them by', () => {
    assert.equal(bandStyles.hd.label, 'HD (1080p and above)');
    assert.equal(bandStyles.sd.label, 'SD (481p to 1079p)');
    assert.equal(bandStyles.ld.label, 'LD (480p and below)');
  });

  it('totals what it draws: every band of every day', () => {
    assert.equal(dailyChartTotal([day('2026-11-22', 0, 0, 0)]), 0);
    assert.equal(dailyChartTotal([day('2026-11-22', 1, 0, 0), day('2026-11-23', 3, 5, 7)]), 16);
  });
});

describe('usagePerEnvironmentOption', () => {
  it('shows each environment by name where known, by id otherwise', () => {
    const usage = [
      { envId: 'env_a', segmentsServedInPeriod: 9, videosUploadedInPeriod: 2 },
      { envId: 'env_b', segmentsServedInPeriod: 0, videosUploadedInPeriod: 1 },
    ] as UsageRecord[];
    const option = usagePerEnvironmentOption(usage, new Map([['env_a', 'production']]));
    assert.deepEqual(categoriesOf(option), ['production', 'env_b']);
    assert.deepEqual(
      seriesOf(option).map((s) => s.data),
      [
        [9, 0],
        [2, 1],
      ],
    );
  });
});

describe('storageByTierOption', () => {
  it('shows minutes stored per quality tier', () => {
    const storage = { ultraQualityDuration: 90, highQualityDuration: 0, standardQualityDuration: 30 } as StorageRecord;
    const [pie] = seriesOf(storageByTierOption(storage)) as unknown as Array<{
      data: Array<{ name: string; value: number }>;
    }>;
    assert.deepEqual(pie!.data, [
      { name: 'Ultra', value: 1.5 },
      { name: 'High', value: 0 },
      { name: 'Standard', value: 0.5 },
    ]);
  });
});

describe('resolutionDistributionOption', () => {
  it('orders heights from the lowest and colours each bar by its band', () => {
    const entry = (resolutionHeight: number, segmentsServed: number) =>
      ({ resolutionHeight, segmentsServed }) as DistributionEntry;
    const option = resolutionDistributionOption([entry(1080, 4), entry(360, 1), entry(720, 2)])!;
    assert.deepEqual(categoriesOf(option), ['360p', '720p', '1080p']);
    assert.deepEqual(seriesOf(option)[0]!.data, [
      { value: 1, itemStyle: { color: bandStyles.ld.color } },
      { value: 2, itemStyle: { color: bandStyles.sd.color } },
      { value: 4, itemStyle: { color: bandStyles.hd.color } },
    ]);
  });

  it('draws nothing when nothing was served (the page says so instead of showing a bare axis)', () => {
    assert.equal(resolutionDistributionOption([]), undefined);
    assert.equal(videoResolutionsOption([{ resolutionHeight: 360, timesServed: 0 } as ResolutionEntry]), undefined);
  });
});

describe('legends', () => {
  it('every legend is one scrolling line above the plot, clear of the value axis name (at 390 px too)', () => {
    const usage = [{ envId: 'env_1', segmentsServedInPeriod: 1, videosUploadedInPeriod: 1 }] as UsageRecord[];
    const withLegends = [dailySegmentsOption([day('2026-11-01', 1, 2, 3)]), usagePerEnvironmentOption(usage)];
    for (const option of withLegends) {
      const { legend, grid } = option as { legend: { type?: string; top?: number }; grid: { top: number } };
      assert.equal(legend.type, 'scroll', 'one line, however narrow the chart');
      assert.ok(grid.top >= 48, `the plot starts ${grid.top} px down, under the legend and the axis name`);
    }
  });
});

describe('experience charts', () => {
  const days: ExperienceRecord[] = [
    {
      key: '2026-03-01',
      views: 4,
      watchTimeSeconds: 210,
      startupMsP50: 700,
      startupMsP95: 1000,
      rebufferPercent: 100 * (6000 / 210000),
      rebuffersPerMinute: 3 / 3.5,
      failurePercent: 25,
      exitsBeforeStartPercent: 0,
    },
    {
      key: '2026-03-02',
      views: 0,
      watchTimeSeconds: 0,
      startupMsP50: null,
      startupMsP95: null,
      rebufferPercent: 0,
      rebuffersPerMinute: 0,
      failurePercent: 0,
      exitsBeforeStartPercent: 0,
    },
  ];

  it('draws startup p50 and p95 per day, a day without starts as a gap', () => {
    const option = experienceStartupOption(days);
    assert.deepEqual(categoriesOf(option), ['2026-03-01', '2026-03-02']);
    assert.deepEqual(
      seriesOf(option).map((s) => [s.name, s.data]),
      [
        ['Startup p50', [700, null]],
        ['Startup p95', [1000, null]],
      ],
    );
  });

  it('draws rebuffering, failures and exits per day in percent, to two decimals', () => {
    assert.deepEqual(
      seriesOf(experienceRatesOption(days)).map((s) => [s.name, s.data]),
      [
        ['Rebuffering', [2.86, 0]],
        ['Failures', [25, 0]],
        ['Exits before start', [0, 0]],
      ],
    );
  });
});
