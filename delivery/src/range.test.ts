import { test } from 'vitest';
import assert from 'node:assert/strict';
import { parseRange } from './range.ts';

test('byte ranges: closed, open, suffix, clamped', () => {
  assert.deepEqual(parseRange(undefined, 100), { type: 'full' });
  assert.deepEqual(parseRange('bytes=0-9', 100), { type: 'partial', start: 0, end: 9 });
  assert.deepEqual(parseRange('bytes=90-', 100), { type: 'partial', start: 90, end: 99 });
  assert.deepEqual(parseRange('bytes=-10', 100), { type: 'partial', start: 90, end: 99 });
  assert.deepEqual(parseRange('bytes=-1000', 100), { type: 'partial', start: 0, end: 99 });
  assert.deepEqual(parseRange('bytes=50-1000', 100), { type: 'partial', start: 50, end: 99 });
  assert.deepEqual(parseRange('bytes=99-99', 100), { type: 'partial', start: 99, end: 99 });
});

test('unsatisfiable ranges are 416', () => {
  assert.deepEqual(parseRange('bytes=100-', 100), { type: 'unsatisfiable' });
  assert.deepEqual(parseRange('bytes=100-200', 100), { type: 'unsatisfiable' });
  assert.deepEqual(parseRange('bytes=-0', 100), { type: 'unsatisfiable' });
  assert.deepEqual(parseRange('bytes=0-0', 0), { type: 'unsatisfiable' });
});

test('headers Kino does not understand are ignored (whole object)', () => {
  assert.deepEqual(parseRange('items=0-9', 100), { type: 'full' });
  assert.deepEqual(parseRange('bytes=0-9,20-29', 100), { type: 'full' });
  assert.deepEqual(parseRange('bytes=9-0', 100), { type: 'full' });
  assert.deepEqual(parseRange('bytes=-', 100), { type: 'full' });
  assert.deepEqual(parseRange('bytes=a-b', 100), { type: 'full' });
});
