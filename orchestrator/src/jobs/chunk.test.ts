// A chunk's place in the encode queue.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { rendition } from '../testing/fake-node.ts';
import { chunkPlacement } from './chunk.ts';

test('a just-in-time run names the segments it makes, urgent when someone waits, ahead of the background when asked; any other chunk is plain queue work', () => {
  const renditions = [rendition!, { ...rendition!, key: '720p' }];
  const chunk = { index: 3, startSeconds: 36, durationSeconds: 12, firstSegment: 6, segmentCount: 2 };
  const segments = { renditions: ['360p', '720p'], firstSegment: 6, segmentCount: 2 };
  assert.deepEqual(chunkPlacement({ renditions, chunk, justInTime: { rank: 4, urgent: false } }), {
    priority: 0,
    rank: 4,
    segments,
  });
  assert.deepEqual(chunkPlacement({ renditions, chunk, justInTime: { rank: 4, urgent: true } }), {
    priority: 1,
    rank: 4,
    segments,
  });
  assert.deepEqual(chunkPlacement({ renditions, chunk, justInTime: { rank: 1, urgent: false, ahead: true } }), {
    priority: 0,
    rank: 1,
    ahead: true,
    segments,
  });
  assert.equal(chunkPlacement({ renditions, chunk }), undefined);
});
