// The analytics page's date range: UTC calendar days (YYYY-MM-DD, both ends inclusive), as the API's
// analytics take them (startDate, endDate; at most 365 days), kept in the page URL.

export interface DateRange {
  startDate: string;
  endDate: string;
}

export const MAX_RANGE_DAYS = 365;
const dayMs = 86_400_000;
const day = /^\d{4}-\d{2}-\d{2}$/;

export const utcDay = (date: Date) => date.toISOString().slice(0, 10);

/** The last `days` days up to and including today (UTC). */
export function lastDays(days: number, now = new Date()): DateRange {
  return { startDate: utcDay(new Date(now.getTime() - (days - 1) * dayMs)), endDate: utcDay(now) };
}

/** Days in the range, both ends counted. */
export function rangeDays({ startDate, endDate }: DateRange): number {
  return Math.round((Date.parse(endDate) - Date.parse(startDate)) / dayMs) + 1;
}

/** The range in the page's query (`from`, `to`) when it is a valid one, else the last 30 days. */
export function rangeFromSearch(search: string, now = new Date()): DateRange {
  const params = new URLSearchParams(search);
  const startDate = params.get('from') ?? '';
  const endDate = params.get('to') ?? '';
  if (day.test(startDate) && day.test(endDate)) {
    const days = rangeDays({ startDate, endDate });
    if (days >= 1 && days <= MAX_RANGE_DAYS) return { startDate, endDate };
  }
  return lastDays(30, now);
}

/** The usage endpoint's query for a range: its `periodDays` days ending with its `endDate`. */
export function usageQueryFor(range: DateRange): string {
  return `periodDays=${Math.min(MAX_RANGE_DAYS, Math.max(1, rangeDays(range)))}&endDate=${range.endDate}`;
}
