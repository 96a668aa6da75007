import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { ApiError } from '../http/errors.ts';
import { assertClippable } from './clips.ts';

/** A ready 60 s video that is no clip. */
const source = {
  id: 'vid_1',
  status: 'ready' as const,
  segments_pending: false,
  clip_own_segments: [] as number[],
  clip_of_video_id: null as string | null,
  duration_seconds: 60,
};
const range = { startTime: 10, endTime: 20, frameAccurate: false };

/** The status and code `run` is refused with. */
function refusal(run: () => void): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return `${error.statusCode} ${error.code}`;
  }
  return 'accepted';
}

describe('what a clip may be cut from', () => {
  it('a ready video with a complete ladder', () => {
    assert.equal(
      refusal(() => assertClippable(source, range)),
      'accepted',
    );
    assert.equal(
      refusal(() => assertClippable({ ...source, status: 'transcoding' }, range)),
      '409 video_not_ready',
    );
    assert.equal(
      refusal(() => assertClippable({ ...source, segments_pending: true }, range)),
      '409 video_not_ready',
    );
  });

  it('a clip, unless frame-accurate or cut from a frame-accurate clip', () => {
    const clip = { ...source, clip_of_video_id: 'vid_0' };
    assert.equal(
      refusal(() => assertClippable(clip, range)),
      'accepted',
    );
    assert.equal(
      refusal(() => assertClippable(clip, { ...range, frameAccurate: true })),
      '400 invalid_request',
    );
    assert.equal(
      refusal(() => assertClippable({ ...clip, clip_own_segments: [0, 3] }, range)),
      '400 invalid_request',
    );
  });

  it('a range with 0 ≤ startTime < endTime ≤ duration, measured durations allowed a millisecond', () => {
    assert.equal(
      refusal(() => assertClippable(source, { ...range, startTime: 20 })),
      '400 invalid_clip_range',
    );
    assert.equal(
      refusal(() => assertClippable(source, { ...range, endTime: 60.0005 })),
      'accepted',
    );
    assert.equal(
      refusal(() => assertClippable(source, { ...range, endTime: 60.01 })),
      '400 invalid_clip_range',
    );
  });
});
