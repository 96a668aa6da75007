// ECharts options for the analytics page, built from the API's analytics records as they come
// (docs/decisions/dashboard.md): pure functions, so what each chart shows is unit-tested without a
// browser. The page hands them to <Chart> (chart.tsx), which owns ECharts itself.
import type { EChartsCoreOption } from 'echarts/core';
import type {
  DailyRecord,
  DistributionEntry,
  ExperienceRecord,
  ResolutionEntry,
  StorageRecord,
  UsageRecord,
} from '@kino/sdk';
import { resolutionBandOf, resolutionBands, type ResolutionBand } from '@kino/proto/contract';

/** The bands as the charts name and colour them (the API's bands: @kino/proto/contract resolution-bands). */
export const bandStyles: Record<ResolutionBand, { label: string; color: string }> = {
  hd: { label: `HD (${resolutionBands.hdMinHeight}p and above)`, color: '#2f6fde' },
  sd: { label: `SD (${resolutionBands.ldMaxHeight + 1}p to ${resolutionBands.hdMinHeight - 1}p)`, color: '#38a169' },
  ld: { label: `LD (${resolutionBands.ldMaxHeight}p and below)`, color: '#d69e2e' },
};

const bandOrder: ResolutionBand[] = ['hd', 'sd', 'ld'];

/** `2026-11-23T00:00:00Z` → `2026-11-23` (the API's deliveryDate is a UTC midnight). */
export const dayOf = (deliveryDate: string) => deliveryDate.slice(0, 10);

const heightLabel = (height: number) => `${height}p`;

const bandFields: Record<ResolutionBand, 'hdSegments' | 'sdSegments' | 'ldSegments'> = {
  hd: 'hdSegments',
  sd: 'sdSegments',
  ld: 'ldSegments',
};

/**
 * A legend above a chart: one line that scrolls when its names do not fit (a phone's 390 px), never
 * several lines that would run over the axis's name below it.
 */
export const chartLegend = { type: 'scroll', top: 0 } as const;
/** The plot below the legend's one line (24 px) and the value axis's name (about 20 px). */
export const gridUnderLegend = { left: 48, right: 16, top: 48, bottom: 32 } as const;

/** Segments served per day, stacked by HD, SD and LD, every day of the range (the API includes zero days). */
export function dailySegmentsOption(daily: DailyRecord[]): EChartsCoreOption {
  return {
    tooltip: { trigger: 'axis' },
    legend: chartLegend,
    grid: gridUnderLegend,
    xAxis: { type: 'category', data: daily.map((day) => dayOf(day.deliveryDate)) },
    yAxis: { type: 'value', name: 'segments', minInterval: 1 },
    series: bandOrder.map((band) => ({
      name: bandStyles[band].label,
      type: 'bar',
      stack: 'segments',
      itemStyle: { color: bandStyles[band].color },
      data: daily.map((day) => day[bandFields[band]]),
    })),
  };
}

/** Segments served and videos uploaded in the period, one group per environment (named where known). */
export function usagePerEnvironmentOption(
  usage: UsageRecord[],
  environmentNames: ReadonlyMap<string, string> = new Map(),
): EChartsCoreOption {
  const names = usage.map((record) => environmentNames.get(record.envId) ?? record.envId);
  return {
    tooltip: { trigger: 'axis' },
    legend: chartLegend,
    grid: gridUnderLegend,
    xAxis: { type: 'category', data: names },
    yAxis: { type: 'value', minInterval: 1 },
    series: [
      { name: 'Segments served in period', type: 'bar', data: usage.map((record) => record.segmentsServedInPeriod) },
      { name: 'Videos uploaded in period', type: 'bar', data: usage.map((record) => record.videosUploadedInPeriod) },
    ],
  };
}

/** Minutes of video stored per quality tier (the presets: ultra, high, standard). */
export function storageByTierOption(storage: StorageRecord): EChartsCoreOption {
  const minutes = (seconds: number) => Math.round((seconds / 60) * 10) / 10;
  return {
    tooltip: { trigger: 'item', formatter: '{b}: {c} min ({d}%)' },
    legend: chartLegend,
    series: [
      {
        name: 'Stored minutes',
        type: 'pie',
        radius: ['40%', '70%'],
        top: 24,
        // An empty tier has a zero-degree sector: its label would sit on the next one's.
        minShowLabelAngle: 3,
        data: [
          { name: 'Ultra', value: minutes(storage.ultraQualityDuration) },
          { name: 'High', value: minutes(storage.highQualityDuration) },
          { name: 'Standard', value: minutes(storage.standardQualityDuration) },
        ],
      },
    ],
  };
}

/**
 * Segments served per rendition height, lowest first, each bar in its band's colour. Undefined when
 * nothing was served: the page says so in words rather than drawing a bare axis.
 */
function segmentsByHeightOption(
  rows: Array<{ height: number; segments: number }>,
  seriesName: string,
): EChartsCoreOption | undefined {
  if (rows.every((row) => row.segments === 0)) return undefined;
  const sorted = [...rows].sort((a, b) => a.height - b.height);
  return {
    tooltip: { trigger: 'axis' },
    grid: { left: 48, right: 16, top: 24, bottom: 32 },
    xAxis: { type: 'category', data: sorted.map((row) => heightLabel(row.height)) },
    yAxis: { type: 'value', name: 'segments', minInterval: 1 },
    series: [
      {
        name: seriesName,
        type: 'bar',
        data: sorted.map((row) => ({
          value: row.segments,
          itemStyle: { color: bandStyles[resolutionBandOf(row.height)].color },
        })),
      },
    ],
  };
}

/** The resolution distribution across videos. */
export function resolutionDistributionOption(distribution: DistributionEntry[]): EChartsCoreOption | undefined {
  return segmentsByHeightOption(
    distribution.map((entry) => ({ height: entry.resolutionHeight, segments: entry.segmentsServed })),
    'Segments served',
  );
}

/** One video's segments per rendition height. */
export function videoResolutionsOption(resolutions: ResolutionEntry[]): EChartsCoreOption | undefined {
  return segmentsByHeightOption(
    resolutions.map((entry) => ({ height: entry.resolutionHeight, segments: entry.timesServed })),
    'Segments served',
  );
}

/** The segments the daily chart draws: every band of every day. */
export function dailyChartTotal(daily: DailyRecord[]): number {
  return daily.reduce((total, day) => total + bandOrder.reduce((sum, band) => sum + day[bandFields[band]], 0), 0);
}

/**
 * Video startup time per day, p50 and p95 as lines (the API's `groupBy=day` records, every day of
 * the range). A day without a started view has no startup time: a gap, not a drop to 0 ms.
 */
export function experienceStartupOption(days: ExperienceRecord[]): EChartsCoreOption {
  return {
    tooltip: { trigger: 'axis' },
    legend: chartLegend,
    grid: gridUnderLegend,
    xAxis: { type: 'category', data: days.map((d) => d.key) },
    yAxis: { type: 'value', name: 'ms' },
    series: [
      { name: 'Startup p50', type: 'line', connectNulls: false, data: days.map((d) => d.startupMsP50) },
      { name: 'Startup p95', type: 'line', connectNulls: false, data: days.map((d) => d.startupMsP95) },
    ],
  };
}

const twoDecimals = (value: number) => Math.round(value * 100) / 100;

/** Rebuffer percentage, playback failure percentage and exits before start per day, in percent. */
export function experienceRatesOption(days: ExperienceRecord[]): EChartsCoreOption {
  return {
    tooltip: { trigger: 'axis', valueFormatter: (value: number) => `${value} %` },
    legend: chartLegend,
    grid: gridUnderLegend,
    xAxis: { type: 'category', data: days.map((d) => d.key) },
    yAxis: { type: 'value', name: '%' },
    series: [
      { name: 'Rebuffering', type: 'line', data: days.map((d) => twoDecimals(d.rebufferPercent)) },
      { name: 'Failures', type: 'line', data: days.map((d) => twoDecimals(d.failurePercent)) },
      { name: 'Exits before start', type: 'line', data: days.map((d) => twoDecimals(d.exitsBeforeStartPercent)) },
    ],
  };
}
