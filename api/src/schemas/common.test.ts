import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { parseCalendarDate } from './common.ts';

describe('calendar dates', () => {
  it('parse real calendar dates only', () => {
    assert.equal(parseCalendarDate('2024-02-29')?.toISOString(), '2024-02-29T00:00:00.000Z');
    assert.equal(parseCalendarDate('2023-02-29'), undefined);
    assert.equal(parseCalendarDate('2024-13-01'), undefined);
  });
});
