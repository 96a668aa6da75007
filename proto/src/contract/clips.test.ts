import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { clipCuts, mediaPlaylistDurations, selectClipSegments } from './clips.ts';

describe('clip segments', () => {
  const durations = [6, 6, 6, 6, 2.5];

  it('are the segments overlapping the range, whole', () => {
    assert.deepEqual(selectClipSegments(durations, 7, 13), {
      firstSegment: 1,
      durations: [6, 6],
      spanStartSeconds: 6,
      spanSeconds: 12,
    });
  });

  it('do not take a segment that starts exactly at the end, nor one that ends exactly at the start', () => {
    assert.deepEqual(selectClipSegments(durations, 6, 12), {
      firstSegment: 1,
      durations: [6],
      spanStartSeconds: 6,
      spanSeconds: 6,
    });
  });

  it('run to the last segment when the range ends at the end', () => {
    const clip = selectClipSegments(durations, 20, 26.5);
    assert.equal(clip.firstSegment, 3);
    assert.deepEqual(clip.durations, [6, 2.5]);
  });

  it('are none past the end', () => {
    assert.throws(() => selectClipSegments(durations, 27, 30), /no segment overlaps/);
  });

  it('come from a playlist', () => {
    const playlist =
      '#EXTM3U\n#EXT-X-MAP:URI="init.mp4"\n#EXTINF:6.000000,\nseg-00000.m4s\n#EXTINF:2.500000,\nseg-00001.m4s\n#EXT-X-ENDLIST\n';
    assert.deepEqual(mediaPlaylistDurations(playlist), [6, 2.5]);
  });
});

describe("a frame-accurate clip's cuts", () => {
  const durations = [6, 6, 6, 6, 2.5];

  it("are the selected segments' boundaries, from startTime to endTime", () => {
    assert.deepEqual(clipCuts(selectClipSegments(durations, 7.04, 20.2), 7.04, 20.2), [7.04, 12, 18, 20.2]);
  });

  it("are one segment for a range inside one of the video's", () => {
    assert.deepEqual(clipCuts(selectClipSegments(durations, 7, 11), 7, 11), [7, 11]);
  });
});
