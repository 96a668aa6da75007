// The Analytics part of the interface: usage, daily, storage, resolution distribution (each for the
// organization and under /environments/{envID}) and one video's resolutions, a file each. Segment
// counts come from the ClickHouse rollup (@kino/analytics' analytics-store.ts), video facts from
// PostgreSQL. An environment key sees its own environment only, on organization paths too. Days are
// UTC calendar days. This file: what those routes share (date parameters and their checks, the
// store and its failures, the caller's scope, the twin organization and environment paths).
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { AnalyticsStore } from '@kino/analytics';
import { clockOf, type ApiDeps } from '../../deps.ts';
import type { Access } from '../../http/fastify-augment.ts';
import { environmentScope } from '../../plugins/access.ts';
import { ServiceUnavailableError, ValidationError } from '../../http/errors.ts';
import { CalendarDate, EnvParams, OrgParams, parseCalendarDate } from '../../schemas/common.ts';

export const DAY_MS = 24 * 3600_000;
/** The longest range `daily` answers, and the longest usage period (spec). */
export const MAX_RANGE_DAYS = 365;

export const dateParam = (description: string) => Type.Optional(CalendarDate(description));
export const DateRangeQuery = Type.Object({
  startDate: dateParam('First UTC day, YYYY-MM-DD (inclusive). Omitted: no lower bound.'),
  endDate: dateParam('Last UTC day, YYYY-MM-DD (inclusive). Omitted: no upper bound.'),
});

export const dateCodes = { 'query.startDate': 'invalid_date', 'query.endDate': 'invalid_date' };

/** `YYYY-MM-DD hh:mm:ss` (ClickHouse, UTC) or a Date as the analytics timestamp `YYYY-MM-DDThh:mm:ssZ`. */
export function timestamp(value: string | Date): string {
  const text = typeof value === 'string' ? value.replace(' ', 'T') : value.toISOString();
  return `${text.slice(0, 19)}Z`;
}

export function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** A date parameter as the UTC midnight it starts (the schema's `format: date` made it a real day). */
export function dateOf(text: string | undefined): Date | undefined {
  return text === undefined ? undefined : parseCalendarDate(text);
}

export function checkOrder(start: Date | undefined, end: Date | undefined, query: { startDate?: string }): void {
  if (start && end && start > end) {
    throw new ValidationError('invalid_date_range', 'startDate must not be after endDate', [
      { message: 'startDate must not be after endDate', location: 'query.startDate', value: query.startDate },
    ]);
  }
}

/** The environment a request is limited to: the path's, or an environment key's own. */
export function scopeEnvironment(access: Access): string | undefined {
  return access.environment?.id ?? environmentScope(access);
}

export function storeOf(deps: ApiDeps): AnalyticsStore {
  if (!deps.clickhouse)
    throw new ServiceUnavailableError('Analytics are not configured on this server (no CLICKHOUSE_URL).');
  return new AnalyticsStore(deps.clickhouse);
}

/** Runs an analytics read; a store that fails or is down is a 503, not a 500. */
export async function read<T>(request: FastifyRequest, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    request.log.error({ err: error }, 'analytics store query failed');
    throw new ServiceUnavailableError('The analytics store is unavailable; try again shortly.');
  }
}

/** The default look-back of `daily` and `experience` (spec): this many days before endDate. */
export const DEFAULT_LOOKBACK_DAYS = 30;

/** `startDate`/`endDate` of an endpoint that lists every day (daily, experience). */
export const DayListQuery = Type.Object({
  startDate: dateParam(`First UTC day, YYYY-MM-DD (inclusive). Default: ${DEFAULT_LOOKBACK_DAYS} days before endDate.`),
  endDate: dateParam('Last UTC day, YYYY-MM-DD (inclusive). Default: today.'),
});

/**
 * The range of an endpoint that lists every day: endDate defaults to today, startDate to 30 days
 * before it; start after end is `invalid_date_range`, more than 365 days `date_range_too_long`.
 */
export function dayListRange(
  query: { startDate?: string; endDate?: string },
  deps: Pick<ApiDeps, 'now'>,
): { start: Date; end: Date } {
  const end = dateOf(query.endDate) ?? todayOf(deps);
  const start = dateOf(query.startDate) ?? new Date(end.getTime() - DEFAULT_LOOKBACK_DAYS * DAY_MS);
  checkOrder(start, end, query);
  if ((end.getTime() - start.getTime()) / DAY_MS > MAX_RANGE_DAYS) {
    throw new ValidationError('date_range_too_long', `The range may span at most ${MAX_RANGE_DAYS} days`, [
      {
        message: `endDate may be at most ${MAX_RANGE_DAYS} days after startDate`,
        location: 'query.endDate',
        value: query.endDate ?? day(end),
      },
    ]);
  }
  return { start, end };
}

/** Every UTC day from start to end, both included, as YYYY-MM-DD. */
export function daysOf({ start, end }: { start: Date; end: Date }): string[] {
  const days: string[] = [];
  for (let t = start.getTime(); t <= end.getTime(); t += DAY_MS) days.push(day(new Date(t)));
  return days;
}

/** Today's UTC midnight, on the app's clock. */
export function todayOf(deps: Pick<ApiDeps, 'now'>): Date {
  return new Date(`${day(clockOf(deps)())}T00:00:00.000Z`);
}

/** Registers an organization path and its `/environments/{envID}` twin; `scope` names them apart in operationIds. */
export function forOrganizationAndEnvironment(
  tail: string,
  register: (path: string, params: TSchema, scope: 'Organization' | 'Environment') => void,
): void {
  register(`/:orgID/analytics/${tail}`, OrgParams, 'Organization');
  register(`/:orgID/environments/:envID/analytics/${tail}`, EnvParams, 'Environment');
}
