// A chunk's place in the encode queue, and what a video's first bootstrap run does once encoded.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { createNodeActivities } from '../activities/node-work.ts';
import { environment, harness, logger, probedSource, rendition } from '../testing/fake-node.ts';
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

test('the first bootstrap run, once encoded, raises the rest of the first segment (its read-ahead not); no other run raises anything', async () => {
  const bootstrapRun = (index: number) => ({
    index,
    startSeconds: 2 * index,
    durationSeconds: index === 0 ? 2 : 4,
    firstSegment: 0,
    segmentCount: 1,
    bootstrap: true,
  });
  const run = {
    videoId: 'vid_1',
    storagePath: 'uploads/o/e/u/clip.mp4',
    renditions: [rendition!],
    durationSeconds: 60,
    probe: probedSource,
    last: false,
    planId: 'plan',
    recordName: '0-0',
  };
  const raisedBy = async (input: Record<string, unknown>) => {
    const h = harness();
    await environment().run(createNodeActivities({ ...h, logger }).encodeChunk, { ...run, ...input } as never);
    assert.equal(h.requests.length, 1, 'encoded');
    return h.raisedSegments;
  };
  assert.deepEqual(await raisedBy({ chunk: bootstrapRun(0), justInTime: { rank: 0, urgent: true } }), [
    { videoId: 'vid_1', rendition: '360p', segment: 0 },
  ]);
  // The second bootstrap run itself, another codec's first bootstrap run (background), and a 12 s run.
  assert.deepEqual(await raisedBy({ chunk: bootstrapRun(1), justInTime: { rank: 1, urgent: false, ahead: true } }), []);
  assert.deepEqual(await raisedBy({ chunk: bootstrapRun(0), justInTime: { rank: 20, urgent: false } }), []);
  const later = { index: 2, startSeconds: 6, durationSeconds: 12, firstSegment: 1, segmentCount: 2 };
  assert.deepEqual(await raisedBy({ chunk: later, justInTime: { rank: 2, urgent: false } }), []);
});
