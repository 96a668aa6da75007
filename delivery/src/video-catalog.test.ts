import { afterEach, beforeEach, describe, it, test, vi } from 'vitest';
import assert from 'node:assert/strict';
import { VideoCatalog, playableRenditions, type PlayableVideo } from './video-catalog.ts';

const video = (id: string, allowPublicAccess = true): PlayableVideo => ({
  id,
  orgId: 'org_1',
  envId: 'env_1',
  name: 'clip',
  width: null,
  height: null,
  allowPublicAccess,
  thumbnailKey: null,
  storyboardKey: null,
  audioKey: null,
  renditions: new Map(),
  addedAudio: [],
  captions: new Map(),
  clipMedia: null,
  segmentsPending: false,
  masterKey: null,
  live: false,
});

describe('VideoCatalog', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('concurrent lookups share one read; an entry answers until its TTL', async () => {
    const reads: string[] = [];
    const catalog = new VideoCatalog(async (id) => (reads.push(id), video(id)), 2_000);
    const [a, b] = await Promise.all([catalog.get('vid_1'), catalog.get('vid_1')]);
    assert.equal(a, b);
    vi.advanceTimersByTime(1_000);
    await catalog.get('vid_1');
    assert.deepEqual(reads, ['vid_1']);
  });

  it('a video in use is read again in the last quarter of its TTL, without making the request wait', async () => {
    let current = video('vid_1', true);
    let release!: () => void;
    const reads: number[] = [];
    const catalog = new VideoCatalog(async () => {
      reads.push(Date.now());
      if (reads.length > 1) await new Promise<void>((resolve) => (release = resolve));
      return current;
    }, 2_000);
    await catalog.get('vid_1');
    vi.advanceTimersByTime(1_600); // within the last quarter
    current = video('vid_1', false);
    // Answered from the entry at once while the refresh is under way (its read has not returned).
    assert.equal((await catalog.get('vid_1'))?.allowPublicAccess, true);
    assert.equal(reads.length, 2);
    release();
    await vi.waitFor(async () => assert.equal((await catalog.get('vid_1'))?.allowPublicAccess, false));
    assert.equal(reads.length, 2);
  });

  it('fresh reads past a read already under way, and that older read does not replace what fresh found', async () => {
    let current = video('vid_1', true);
    const pending: (() => void)[] = [];
    const catalog = new VideoCatalog(async () => {
      const seen = current;
      await new Promise<void>((resolve) => pending.push(resolve));
      return seen;
    }, 2_000);
    const before = catalog.get('vid_1'); // began before the change
    current = video('vid_1', false); // e.g. a caption track added through the API
    const now = catalog.fresh('vid_1');
    assert.equal(pending.length, 2, 'fresh did not join the read under way');
    pending[1]!();
    assert.equal((await now)?.allowPublicAccess, false);
    pending[0]!();
    assert.equal((await before)?.allowPublicAccess, true);
    assert.equal((await catalog.get('vid_1'))?.allowPublicAccess, false, "the entry is fresh's");
  });

  it('an entry not refreshed ends on time: the next lookup waits for a read', async () => {
    const reads: number[] = [];
    const catalog = new VideoCatalog(async () => (reads.push(Date.now()), undefined), 2_000);
    assert.equal(await catalog.get('vid_gone'), undefined);
    vi.advanceTimersByTime(2_001);
    assert.equal(await catalog.get('vid_gone'), undefined);
    assert.equal(reads.length, 2);
  });
});

test('renditions lowest first, H.264 before HEVC and AV1 at one height: the first is the lowest H.264 rung', () => {
  const row = (key: string, videoCodec: 'h264' | 'hevc' | 'av1') => ({
    key,
    video_codec: videoCodec,
    segment_count: 2,
    bandwidth: 500_000,
    average_bandwidth: null,
  });
  // Whatever order the rows come in: H.264 first is a rule, not the alphabet's luck.
  const renditions = playableRenditions([
    row('360p-av1', 'av1'),
    row('360p-hevc', 'hevc'),
    row('360p', 'h264'),
    row('720p', 'h264'),
    row('240p', 'h264'),
    row('240p-av1', 'av1'),
  ]);
  assert.deepEqual([...renditions.keys()], ['240p', '240p-av1', '360p', '360p-av1', '360p-hevc', '720p']);
  assert.deepEqual(renditions.get('240p-av1'), {
    key: '240p-av1',
    height: 240,
    videoCodec: 'av1',
    segmentCount: 2,
    bandwidth: 500_000,
    averageBandwidth: 500_000,
  });
  assert.equal(renditions.values().next().value?.videoCodec, 'h264');
  // A source's audio tracks (no picture, short edge 0) come after every picture.
  assert.deepEqual(
    [
      ...playableRenditions([
        row('0p-a2', 'h264'),
        row('360p', 'h264'),
        row('0p-a1', 'h264'),
        row('240p', 'h264'),
      ]).keys(),
    ],
    ['240p', '360p', '0p-a1', '0p-a2'],
  );
});
