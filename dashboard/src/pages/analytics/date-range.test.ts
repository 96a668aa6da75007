import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { lastDays, periodDaysFor, rangeDays, rangeFromSearch } from './date-range.ts';

const now = new Date('2026-11-23T07:30:00Z');

describe('the analytics date range', () => {
  it('counts both ends: the last 7 days end today', () => {
    assert.deepEqual(lastDays(7, now), { startDate: '2026-11-17', endDate: '2026-11-23' });
    assert.equal(rangeDays(lastDays(7, now)), 7);
    assert.equal(rangeDays({ startDate: '2026-11-23', endDate: '2026-11-23' }), 1);
  });

  it('reads a valid range from the page query, else the last 30 days', () => {
    assert.deepEqual(rangeFromSearch('?from=2026-10-01&to=2026-10-31', now), {
      startDate: '2026-10-01',
      endDate: '2026-10-31',
    });
    assert.deepEqual(rangeFromSearch('?from=2026-10-31&to=2026-10-01', now), lastDays(30, now));
    assert.deepEqual(rangeFromSearch('?from=2024-01-01&to=2026-10-01', now), lastDays(30, now), 'over 365 days');
    assert.deepEqual(rangeFromSearch('', now), lastDays(30, now));
  });

  it("gives usage the days from the range's start to today, within 1..365", () => {
    assert.equal(periodDaysFor(lastDays(7, now), now), 7);
    assert.equal(periodDaysFor({ startDate: '2026-11-01', endDate: '2026-11-10' }, now), 23);
    assert.equal(periodDaysFor({ startDate: '2020-01-01', endDate: '2020-01-10' }, now), 365);
  });
});
