import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { splitIntoMonths } from './analytics-store.ts';

describe('splitIntoMonths', () => {
  it('reads whole months from the monthly rollup and the days at the ends from the daily one', () => {
    assert.deepEqual(splitIntoMonths('2026-01-15', '2026-04-10'), {
      months: { from: '2026-02-01', to: '2026-03-01' },
      days: [
        { from: '2026-01-15', to: '2026-01-31' },
        { from: '2026-04-01', to: '2026-04-10' },
      ],
    });
    assert.deepEqual(splitIntoMonths('2026-01-01', '2026-02-28'), {
      months: { from: '2026-01-01', to: '2026-02-01' },
      days: [],
    });
    assert.deepEqual(splitIntoMonths('2025-12-31', '2026-03-01'), {
      months: { from: '2026-01-01', to: '2026-02-01' },
      days: [
        { from: '2025-12-31', to: '2025-12-31' },
        { from: '2026-03-01', to: '2026-03-01' },
      ],
    });
    assert.deepEqual(splitIntoMonths('2024-02-01', '2024-02-29'), {
      months: { from: '2024-02-01', to: '2024-02-01' },
      days: [],
    });
    assert.deepEqual(splitIntoMonths('2025-12-01', '2026-01-30'), {
      months: { from: '2025-12-01', to: '2025-12-01' },
      days: [{ from: '2026-01-01', to: '2026-01-30' }],
    });
  });

  it('keeps open bounds open', () => {
    assert.deepEqual(splitIntoMonths(), { months: { from: undefined, to: undefined }, days: [] });
    assert.deepEqual(splitIntoMonths('2026-03-02'), {
      months: { from: '2026-04-01', to: undefined },
      days: [{ from: '2026-03-02', to: '2026-03-31' }],
    });
    assert.deepEqual(splitIntoMonths(undefined, '2026-01-05'), {
      months: { from: undefined, to: '2025-12-01' },
      days: [{ from: '2026-01-01', to: '2026-01-05' }],
    });
  });

  it('reads a range inside one or two partial months day by day', () => {
    assert.deepEqual(splitIntoMonths('2026-01-10', '2026-01-20'), { days: [{ from: '2026-01-10', to: '2026-01-20' }] });
    assert.deepEqual(splitIntoMonths('2026-01-10', '2026-02-20'), { days: [{ from: '2026-01-10', to: '2026-02-20' }] });
    assert.deepEqual(splitIntoMonths('2026-03-05', '2026-03-05'), { days: [{ from: '2026-03-05', to: '2026-03-05' }] });
  });
});
