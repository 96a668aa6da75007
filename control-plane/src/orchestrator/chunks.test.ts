import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { planChunks } from './chunks.ts';

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
    assert.deepEqual(planChunks(125, 32, 6).map((c) => [c.startSeconds, c.durationSeconds, c.segmentCount]), [
      [0, 30, 5],
      [30, 30, 5],
      [60, 30, 5],
      [90, 35, 6],
    ]);
  });

  it('a video no longer than a chunk, or chunking off (0), is one chunk: the whole-file encode', () => {
    assert.equal(planChunks(30, 30, 6).length, 1);
    assert.equal(planChunks(35, 30, 6).length, 1);
    assert.deepEqual(planChunks(600, 0, 6), [{ index: 0, startSeconds: 0, durationSeconds: 600, firstSegment: 0, segmentCount: 100 }]);
  });
});

