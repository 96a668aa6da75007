import { test } from 'vitest';
import assert from 'node:assert/strict';
import { ProgressParser, clampPercent, type FfmpegProgress } from './progress.ts';

const block = (fields: Record<string, string>) =>
  `${Object.entries(fields)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')}\n`;

test('parses one report per progress= line, with percent of the expected duration', () => {
  const seen: FfmpegProgress[] = [];
  const parser = new ProgressParser(10, (p) => seen.push(p));
  parser.push(
    block({
      frame: '50',
      fps: '25.0',
      out_time_us: '2000000',
      out_time_ms: '2000000',
      speed: '1.5x',
      progress: 'continue',
    }),
  );
  parser.push(block({ frame: '250', out_time_us: '10000000', speed: '2x', progress: 'end' }));
  assert.deepEqual(seen, [
    { percent: 20, outTimeSeconds: 2, frame: 50, speed: 1.5, done: false },
    { percent: 100, outTimeSeconds: 10, frame: 250, speed: 2, done: true },
  ]);
});

test('copes with lines split across chunks', () => {
  const seen: FfmpegProgress[] = [];
  const parser = new ProgressParser(4, (p) => seen.push(p));
  const text = block({ frame: '25', out_time_us: '1000000', speed: '3.1x', progress: 'continue' });
  for (const char of text) parser.push(char);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]?.percent, 25);
  assert.equal(seen[0]?.speed, 3.1);
});

test('clamps to 0..100: negative start times, overrun, N/A values, unknown duration', () => {
  const seen: FfmpegProgress[] = [];
  new ProgressParser(2, (p) => seen.push(p)).push(
    block({ out_time_us: '-23220', speed: 'N/A', frame: '0', progress: 'continue' }) +
      block({ out_time_us: '2500000', speed: '1x', frame: '60', progress: 'continue' }) +
      block({ out_time_us: 'N/A', progress: 'continue' }),
  );
  assert.deepEqual(
    seen.map((p) => p.percent),
    [0, 100, 0],
  );
  assert.equal(seen[0]?.speed, 0);
  const unknown: FfmpegProgress[] = [];
  new ProgressParser(0, (p) => unknown.push(p)).push(block({ out_time_us: '5000000', progress: 'continue' }));
  assert.equal(unknown[0]?.percent, 0);
  assert.equal(clampPercent(Number.NaN), 0);
  assert.equal(clampPercent(250), 100);
  assert.equal(clampPercent(42.5), 42.5);
});
