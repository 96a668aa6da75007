import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { meanQuality, planChunks, planJustInTimeRuns, qualitySampleChunks } from './chunks.ts';

describe('planChunks', () => {
  it('cuts on multiples of the segment length; the last chunk runs to the end', () => {
    assert.deepEqual(
      planChunks(20, 6, 6).map((c) => [c.index, c.startSeconds, c.durationSeconds, c.firstSegment, c.segmentCount]),
      [
        [0, 0, 6, 0, 1],
        [1, 6, 6, 1, 1],
        [2, 12, 8, 2, 2],
      ],
    );
  });

  it('rounds the chunk length down to whole segments and joins a sliver to the chunk before it', () => {
    assert.deepEqual(
      planChunks(125, 32, 6).map((c) => [c.startSeconds, c.durationSeconds, c.segmentCount]),
      [
        [0, 30, 5],
        [30, 30, 5],
        [60, 30, 5],
        [90, 35, 6],
      ],
    );
  });

  it('a video no longer than a chunk, or chunking off (0), is one chunk: the whole-file encode', () => {
    assert.equal(planChunks(30, 30, 6).length, 1);
    assert.equal(planChunks(35, 30, 6).length, 1);
    assert.deepEqual(planChunks(600, 0, 6), [
      { index: 0, startSeconds: 0, durationSeconds: 600, firstSegment: 0, segmentCount: 100 },
    ]);
  });
});

describe('quality samples', () => {
  it('score every chunk of a short video, and the first, middle and last of a long one', () => {
    assert.deepEqual([...qualitySampleChunks(1)], [0]);
    assert.deepEqual([...qualitySampleChunks(3)], [0, 1, 2]);
    assert.deepEqual([...qualitySampleChunks(4)], [0, 2, 3]);
    assert.deepEqual([...qualitySampleChunks(40)], [0, 20, 39]);
  });

  it("a rendition's mean weights each scored chunk by its frames; none scored is no score", () => {
    const mean = meanQuality([
      { quality: { vmaf: 90, psnr: 40, frames: 300 } },
      {},
      { quality: { vmaf: 80, psnr: 36, frames: 100 } },
    ]);
    assert.deepEqual(mean, { vmaf: 87.5, psnr: 39, frames: 400 });
    assert.equal(meanQuality([{}, {}]), undefined);
  });
});

describe('planJustInTimeRuns', () => {
  const runs = (duration: number) =>
    planJustInTimeRuns(duration, 12, 6).map((r) => [r.firstSegment, r.segmentCount, r.startSeconds, r.durationSeconds]);

  it('cuts the first segment alone, then runs of 12 s in playback order, the tail joining the run before it', () => {
    assert.deepEqual(runs(40), [
      [0, 1, 0, 6],
      [1, 2, 6, 12],
      [3, 2, 18, 12],
      [5, 2, 30, 12],
    ]);
    // 6 s + 12 s + 12 s + 3 s: the 3 s tail joins the last run (which asks for more than is left).
    assert.deepEqual(runs(33), [
      [0, 1, 0, 6],
      [1, 2, 6, 12],
      [3, 3, 18, 15],
    ]);
    assert.deepEqual(
      planJustInTimeRuns(40, 12, 6).map((r) => r.index),
      [0, 1, 2, 3],
    );
  });

  it('a video of one segment (a sliver past it included) is one run', () => {
    assert.deepEqual(runs(6), [[0, 1, 0, 6]]);
    assert.deepEqual(runs(8), [[0, 2, 0, 8]]);
  });

  it('with bootstrap segments, the first segment is two runs (2 s, then 4 s), both of segment 0', () => {
    const plan = (duration: number) =>
      planJustInTimeRuns(duration, 12, 6, 'bootstrap-apart').map((r) => [
        r.index,
        r.firstSegment,
        r.segmentCount,
        r.startSeconds,
        r.durationSeconds,
        r.bootstrap ?? false,
      ]);
    assert.deepEqual(plan(40), [
      [0, 0, 1, 0, 2, true],
      [1, 0, 1, 2, 4, true],
      [2, 1, 2, 6, 12, false],
      [3, 3, 2, 18, 12, false],
      [4, 5, 2, 30, 12, false],
    ]);
    // 10 s: one run without; the first segment is whole, so it is made as bootstrap segments.
    assert.deepEqual(plan(10), [
      [0, 0, 1, 0, 2, true],
      [1, 0, 1, 2, 4, true],
      [2, 1, 1, 6, 12, false],
    ]);
    // Under 7 s the video is one segment (a tail folded in): one run, as without.
    assert.deepEqual(plan(6.5), [[0, 0, 2, 0, 7, false]]);
  });

  it('with the rest of the first segment in the next run, bootstrap segments add no run (one to a video of one run)', () => {
    const plan = (duration: number) =>
      planJustInTimeRuns(duration, 12, 6, 'bootstrap-with-next').map((r) => [
        r.index,
        r.firstSegment,
        r.segmentCount,
        r.startSeconds,
        r.durationSeconds,
        r.bootstrap ?? false,
      ]);
    const count = (duration: number, firstSegment: 'whole' | 'bootstrap-with-next') =>
      planJustInTimeRuns(duration, 12, 6, firstSegment).length;
    // 2-18 s: segment 0's other bootstrap segments, then segments 1 and 2 (the run after it without bootstrap).
    assert.deepEqual(plan(40), [
      [0, 0, 1, 0, 2, true],
      [1, 0, 3, 2, 16, true],
      [2, 3, 2, 18, 12, false],
      [3, 5, 2, 30, 12, false],
    ]);
    assert.equal(count(40, 'bootstrap-with-next'), count(40, 'whole'));
    // 10 s: two runs (one without), the second to the end of the video (asking for more, as a last run does).
    assert.deepEqual(plan(10), [
      [0, 0, 1, 0, 2, true],
      [1, 0, 2, 2, 16, true],
    ]);
    assert.equal(count(60, 'bootstrap-with-next'), count(60, 'whole'));
    assert.equal(count(10, 'bootstrap-with-next'), count(10, 'whole') + 1);
    assert.deepEqual(plan(6.5), [[0, 0, 2, 0, 7, false]]);
  });
});
