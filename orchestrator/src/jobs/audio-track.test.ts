// The audio-track job with a fake farm and node: its place in the encode queue.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { createNodeActivities } from '../activities/node-work.ts';
import { environment, harness, logger, probedSource, rendition } from '../testing/fake-node.ts';

test("an audio track: just in time, the first of its video's background work, naming the segments that wait for it; urgent in older workflows; plain queue work otherwise", async () => {
  const awaiting = { renditions: ['360p', '720p'], firstSegment: 5, segmentCount: 45 };
  const track = {
    videoId: 'vid_1',
    storagePath: 'uploads/o/e/u/clip.mp4',
    rendition: rendition!,
    durationSeconds: 300,
    probe: probedSource,
  };
  const placements = [];
  for (const input of [
    { ...track, justInTime: { awaiting } },
    { ...track, justInTime: {} },
    { ...track, urgent: true },
    track,
  ]) {
    // Not in storage yet (an earlier attempt's track would be used as it is).
    const h = harness({ objectSize: null });
    await environment().run(createNodeActivities({ ...h, logger }).encodeAudioTrack, input);
    assert.ok(h.requests[0] && 'audioTrack' in h.requests[0], 'the node was asked for the track');
    placements.push(h.acquired[0]!.placement);
  }
  assert.deepEqual(placements, [
    { priority: 0, rank: 0, segments: awaiting },
    { priority: 0, rank: 0 },
    { priority: 1 },
    undefined,
  ]);
});
