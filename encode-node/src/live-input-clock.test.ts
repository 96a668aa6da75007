// A broadcast's gaps as the node sees them: its files' lag behind their media time.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { LiveInputClock } from './live-input-clock.ts';

test('a backlog read fast is no gap; a reconnect is one, and moves every later time on by it', () => {
  const clock = new LiveInputClock(undefined, 3000);
  const start = 1_000_000;
  // ffmpeg starts 5 s into the broadcast and reads its backlog at 5x: the lag falls, then holds.
  const placed = [];
  for (let k = 0; k < 10; k++) {
    const now = start + Math.max((k + 1) * 200, (k + 1) * 1000 - 5000 + 300);
    placed.push(clock.place(start + k * 1000, 1, now));
  }
  assert.ok(placed.every((p, k) => !p.afterGap && p.programDateTimeMs === start + k * 1000));
  // The publisher gone 8 s: the last part before the gap closes only when the next one starts, 8 s
  // late; it keeps its time, the part after it is marked and moved on by the gap, and the rest.
  const last = clock.place(start + 10_000, 1, start + 11_000 - 5000 + 300 + 8000);
  assert.deepEqual(last, { programDateTimeMs: start + 10_000, afterGap: false });
  const after = clock.place(start + 11_000, 1, start + 12_000 - 5000 + 300 + 8000 + 150);
  assert.deepEqual(after, { programDateTimeMs: start + 11_000 + 8000, afterGap: true });
  const next = clock.place(start + 12_000, 1, start + 13_000 - 5000 + 300 + 8000 + 100);
  assert.deepEqual(next, { programDateTimeMs: start + 12_000 + 8000, afterGap: false });
});

test('an encoder’s jitter under the threshold is no gap', () => {
  const clock = new LiveInputClock(undefined, 3000);
  clock.place(0, 1, 1300);
  assert.equal(clock.place(1000, 1, 2000 + 300 + 2500).afterGap, false);
});

test('with the broadcast’s start, each time is that start plus the media time before the file, moved on by gaps', () => {
  const broadcastStart = 1_000_000;
  // ffmpeg started 4.6 s after the publish and dated its first file by its own start's whole second.
  const ffmpegStart = broadcastStart + 4000;
  const clock = new LiveInputClock(broadcastStart, 3000);
  const now = (k: number) => broadcastStart + (k + 1) * 1000 + 700;
  assert.deepEqual(clock.place(ffmpegStart, 1, now(0)), { programDateTimeMs: broadcastStart, afterGap: false });
  assert.equal(clock.place(ffmpegStart + 1000, 1, now(1)).programDateTimeMs, broadcastStart + 1000);
  // A 5 s gap after the third file: the fourth is 5 s on.
  clock.place(ffmpegStart + 2000, 1, now(2) + 5000);
  assert.deepEqual(clock.place(ffmpegStart + 3000, 1, now(3) + 5000), {
    programDateTimeMs: broadcastStart + 3000 + 5000,
    afterGap: true,
  });
});

test('an encoder falling behind while ffmpeg keeps reporting is no gap: the times stay media time’s', () => {
  const start = 1_000_000;
  const clock = new LiveInputClock(start, 3000);
  // Each file closes 1 s later than the one before past its media time; ffmpeg reported every 0.5 s.
  for (let k = 0; k < 10; k++) {
    const placed = clock.place(start + k * 1000, 1, start + (k + 1) * 1000 + 700 + k * 1000, 500);
    assert.deepEqual(placed, { programDateTimeMs: start + k * 1000, afterGap: false });
  }
  // The same lag with 4 s of silence before it is a gap.
  clock.place(start + 10_000, 1, start + 11_000 + 700 + 4000, 4300);
  assert.equal(clock.place(start + 11_000, 1, start + 12_000 + 700 + 4000, 500).afterGap, true);
});
