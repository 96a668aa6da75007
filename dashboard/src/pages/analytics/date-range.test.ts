import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { lastDays, rangeDays, rangeFromSearch, usageQueryFor } from './date-range.ts';

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

  it('asks usage for the range itself: its days, ending with its end date', () => {
    assert.equal(usageQueryFor(lastDays(7, now)), `periodDays=7&endDate=${lastDays(7, now).endDate}`);
    assert.equal(usageQueryFor({ startDate: '2026-11-01', endDate: '2026-11-10' }), 'periodDays=10&endDate=2026-11-10');
  });
});
