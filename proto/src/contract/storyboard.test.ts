import { test } from 'vitest';
import assert from 'node:assert/strict';
import { planStoryboard, storyboardSheetName, storyboardSheetPattern } from './storyboard.ts';

test('a storyboard plan: a tile per 5 s, sheets of at most 10 x 10', () => {
  assert.deepEqual(planStoryboard(7), { intervalSeconds: 5, tiles: 2, columns: 2, rows: 1, sheets: 1 });
  assert.deepEqual(planStoryboard(0.5), { intervalSeconds: 5, tiles: 1, columns: 1, rows: 1, sheets: 1 });
  assert.deepEqual(planStoryboard(60), { intervalSeconds: 5, tiles: 12, columns: 10, rows: 2, sheets: 1 });
  assert.deepEqual(planStoryboard(3600), { intervalSeconds: 5, tiles: 720, columns: 10, rows: 10, sheets: 8 });
});

test("sheet names are the ones ffmpeg's pattern writes", () => {
  for (const i of [0, 1, 12]) assert.equal(storyboardSheetName(i), storyboardSheetPattern.replace('%d', String(i)));
});
