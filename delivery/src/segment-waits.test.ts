import { afterEach, beforeEach, describe, test, vi } from 'vitest';
import assert from 'node:assert/strict';
import {
  SegmentWaits,
  segmentWaitTiming,
  type MissingSegment,
  type SharedWaitEnd,
  type VideoProgress,
} from './segment-waits.ts';

const segment = (index: number): MissingSegment => ({
  videoId: 'vid_1',
  rendition: '360p',
  segment: index,
  key: `videos/vid_1/hls/360p/seg-${String(index).padStart(5, '0')}.m4s`,
});

/** Storage, the encode queue and the video's row as the waits see them, with every call counted. */
function fakeFarm() {
  const farm = {
    storedKeys: new Set<string>(),
    progress: 'pending' as VideoProgress,
    heads: 0,
    raises: [] as number[],
    progressReads: 0,
    failure: undefined as Error | undefined,
    /** Runs before each read of the video's row (something changing just then). */
    onRowRead: undefined as (() => void) | undefined,
    ends: [] as SharedWaitEnd[],
    requestSeconds: [] as number[],
  };
  const waits = new SegmentWaits(
    {
      async stored(key) {
        farm.heads += 1;
        if (farm.failure) throw farm.failure;
        return farm.storedKeys.has(key);
      },
      async raise(missing) {
        farm.raises.push(missing.segment);
        return true;
      },
      async progress() {
        farm.progressReads += 1;
        farm.onRowRead?.();
        return farm.progress;
      },
    },
    {
      deadlineMs: 10_000,
      metrics: {
        segmentWaited: (end) => farm.ends.push(end),
        requestWaited: (seconds) => farm.requestSeconds.push(seconds),
      },
    },
  );
  return { farm, waits };
}

/** A promise's state once the microtasks queued now have run (a settled chain of awaits included). */
async function stateOf(promise: Promise<unknown>): Promise<'pending' | 'settled'> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let turn = 0; turn < 20; turn++) await Promise.resolve();
  return settled ? 'settled' : 'pending';
}

/** Every test runs on a fake clock (the waits' polls and deadlines are timers). */
function useFakeClock(): void {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());
}

describe('SegmentWaits: how requests share a wait', () => {
  useFakeClock();

  test('requests for one segment share one wait: one raise, one poll loop, all answered once it is stored', async () => {
    const { farm, waits } = fakeFarm();
    const requests = Array.from({ length: 5 }, () => waits.wait(segment(3)));
    await vi.advanceTimersByTimeAsync(segmentWaitTiming.pollMs * 2);
    assert.deepEqual(farm.raises, [3], 'one raise for five viewers');
    assert.equal(farm.heads, 3, 'one HEAD per poll, not one per viewer');
    assert.equal(await stateOf(Promise.race(requests)), 'pending');

    farm.storedKeys.add(segment(3).key);
    await vi.advanceTimersByTimeAsync(segmentWaitTiming.pollMs);
    assert.deepEqual(await Promise.all(requests), Array(5).fill('stored'));
    assert.deepEqual(farm.ends, ['made'], 'one segment made on request');
    assert.equal(farm.requestSeconds.length, 5, 'each request observes its wait');

    const heads = farm.heads;
    await vi.advanceTimersByTimeAsync(5_000);
    assert.equal(farm.heads, heads, 'the loop ended with the wait');
  });

  test('waits for different segments are apart', async () => {
    const { farm, waits } = fakeFarm();
    const three = waits.wait(segment(3));
    const four = waits.wait(segment(4));
    await vi.advanceTimersByTimeAsync(0);
    assert.deepEqual(farm.raises.sort(), [3, 4]);
    farm.storedKeys.add(segment(4).key);
    await vi.advanceTimersByTimeAsync(segmentWaitTiming.pollMs);
    assert.equal(await four, 'stored');
    assert.equal(await stateOf(three), 'pending');
    farm.storedKeys.add(segment(3).key);
    await vi.advanceTimersByTimeAsync(segmentWaitTiming.pollMs);
    assert.equal(await three, 'stored');
  });

  test('the entry is raised again every second while the wait lasts (its run may be queued later)', async () => {
    const { farm, waits } = fakeFarm();
    const request = waits.wait(segment(3));
    await vi.advanceTimersByTimeAsync(3_000);
    // At 0 s, then once a second: a run queued (or re-queued) meanwhile is raised within a second.
    assert.ok(farm.raises.length >= 3 && farm.raises.length <= 4, `raised ${farm.raises.length} times in 3 s`);
    assert.ok(farm.progressReads >= 2 && farm.progressReads <= 3, `read the row ${farm.progressReads} times in 3 s`);
    farm.storedKeys.add(segment(3).key);
    await vi.advanceTimersByTimeAsync(segmentWaitTiming.pollMs);
    assert.equal(await request, 'stored');
  });

  test('a video that failed (or was deleted) while its viewers wait ends their wait: unplayable', async () => {
    const { farm, waits } = fakeFarm();
    const requests = [waits.wait(segment(3)), waits.wait(segment(3))];
    await vi.advanceTimersByTimeAsync(500);
    farm.progress = 'unplayable';
    await vi.advanceTimersByTimeAsync(segmentWaitTiming.progressEveryMs + segmentWaitTiming.pollMs);
    assert.equal(await stateOf(Promise.all(requests)), 'settled', 'within a second of the row turning');
    assert.deepEqual(await Promise.all(requests), ['unplayable', 'unplayable']);
    assert.deepEqual(farm.ends, ['unplayable']);
  });

  test('a ladder completed without the segment ends the wait (complete); with it, the segment is served', async () => {
    const { farm, waits } = fakeFarm();
    const without = waits.wait(segment(9));
    farm.progress = 'complete';
    await vi.advanceTimersByTimeAsync(segmentWaitTiming.progressEveryMs + segmentWaitTiming.pollMs);
    assert.equal(await without, 'complete');

    // Stored by the last run between a HEAD and the row read that says complete: looked for once more.
    const { farm: second, waits: again } = fakeFarm();
    const stored = again.wait(segment(3));
    second.onRowRead = () => {
      second.storedKeys.add(segment(3).key);
      second.progress = 'complete';
    };
    await vi.advanceTimersByTimeAsync(segmentWaitTiming.progressEveryMs + segmentWaitTiming.pollMs);
    assert.equal(await stored, 'stored');
  });
});

describe('SegmentWaits: how a wait ends for its requests', () => {
  useFakeClock();

  test('each request waits until its deadline at most; the loop stops when the last one has gone', async () => {
    const { farm, waits } = fakeFarm();
    const first = waits.wait(segment(3));
    await vi.advanceTimersByTimeAsync(4_000);
    const second = waits.wait(segment(3));
    await vi.advanceTimersByTimeAsync(6_000);
    assert.equal(await first, 'timeout', 'the first request at its 10 s');
    assert.equal(await stateOf(second), 'pending', 'the second has 4 s left, and the loop goes on for it');
    const heads = farm.heads;
    await vi.advanceTimersByTimeAsync(1_000);
    assert.ok(farm.heads > heads);
    await vi.advanceTimersByTimeAsync(3_000);
    assert.equal(await second, 'timeout');
    assert.deepEqual(farm.ends, ['abandoned']);
    const after = farm.heads;
    await vi.advanceTimersByTimeAsync(5_000);
    assert.equal(farm.heads, after, 'nobody waits: no more HEADs');
    assert.deepEqual(farm.requestSeconds, [10, 10]);

    // The next request starts a new wait (and raises again).
    const raises = farm.raises.length;
    const third = waits.wait(segment(3));
    await vi.advanceTimersByTimeAsync(0);
    assert.equal(farm.raises.length, raises + 1);
    farm.storedKeys.add(segment(3).key);
    await vi.advanceTimersByTimeAsync(segmentWaitTiming.pollMs);
    assert.equal(await third, 'stored');
  });

  test('a client that leaves stops waiting at once; the others wait on', async () => {
    const { farm, waits } = fakeFarm();
    const leaving = new AbortController();
    const gone = waits.wait(segment(3), leaving.signal);
    const staying = waits.wait(segment(3));
    await vi.advanceTimersByTimeAsync(500);
    const left = assert.rejects(gone, /client left/);
    leaving.abort(new Error('client left'));
    await vi.advanceTimersByTimeAsync(0);
    assert.equal(await stateOf(gone), 'settled', 'at once, not at the deadline');
    await left;
    assert.equal(await stateOf(staying), 'pending');
    farm.storedKeys.add(segment(3).key);
    await vi.advanceTimersByTimeAsync(segmentWaitTiming.pollMs);
    assert.equal(await staying, 'stored');
  });

  test('storage or the database failing ends the wait with its error; the next request starts afresh', async () => {
    const { farm, waits } = fakeFarm();
    const requests = [waits.wait(segment(3)), waits.wait(segment(3))];
    const failed = Promise.all(requests.map((request) => assert.rejects(request, /storage unavailable/)));
    farm.failure = new Error('storage unavailable');
    await vi.advanceTimersByTimeAsync(segmentWaitTiming.pollMs);
    await failed;
    assert.deepEqual(farm.ends, ['error']);
    farm.failure = undefined;
    farm.storedKeys.add(segment(3).key);
    assert.equal(await waits.wait(segment(3)), 'stored');
  });

  test('a download waits for the complete ladder: the row read every second, nothing raised; the deadline, or its client leaving, ends it', async () => {
    const { farm, waits } = fakeFarm();
    const complete = waits.untilComplete('vid_1');
    await vi.advanceTimersByTimeAsync(2_500);
    assert.equal(await stateOf(complete), 'pending');
    assert.equal(farm.progressReads, 3, 'at 0, 1 and 2 s');
    farm.progress = 'complete';
    await vi.advanceTimersByTimeAsync(segmentWaitTiming.progressEveryMs);
    assert.equal(await complete, 'complete');
    assert.deepEqual(farm.raises, [], 'a download raises nothing: viewers go first');

    farm.progress = 'pending';
    const late = waits.untilComplete('vid_1');
    await vi.advanceTimersByTimeAsync(10_000);
    assert.equal(await late, 'timeout');

    const leaving = new AbortController();
    const gone = waits.untilComplete('vid_1', leaving.signal);
    const left = assert.rejects(gone, /client left/);
    await vi.advanceTimersByTimeAsync(300);
    leaving.abort(new Error('client left'));
    await vi.advanceTimersByTimeAsync(0);
    assert.equal(await stateOf(gone), 'settled', 'at once, not at the next read of the row');
    await left;
  });
});
