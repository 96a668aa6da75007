// The key watch's tick: it renews the leases of the broadcasts this ingest holds, then ends the
// lapsed ones of any ingest (a dead one's), whether this one holds any broadcast or not.
import { expect, test } from 'vitest';
import { createLogger } from '@kino/infra';
import { watchStreamKeys } from './key-watch.ts';
import type { HeldBroadcast } from './publish-sessions.ts';

function watch(held: Pick<HeldBroadcast, 'liveStreamId' | 'videoId' | 'key'>[]) {
  const calls: string[] = [];
  const stop = watchStreamKeys({
    sessions: { heldBroadcasts: () => held as HeldBroadcast[], cutOff: () => calls.push('cutOff') },
    readStreams: () => Promise.resolve([]),
    renewLeases: () => {
      calls.push('renew');
      return Promise.resolve();
    },
    endLapsed: () => {
      calls.push('endLapsed');
      return Promise.resolve();
    },
    intervalMs: 10,
    logger: createLogger('ingest-test', 'silent'),
  });
  return { calls, stop: () => stop.stop() };
}

test('an ingest holding no broadcast still ends the lapsed ones', async () => {
  const { calls, stop } = watch([]);
  await expect.poll(() => calls.length).toBeGreaterThanOrEqual(2);
  stop();
  expect(new Set(calls)).toEqual(new Set(['endLapsed']));
});

test('its own leases are renewed before the lapsed ones are ended', async () => {
  const { calls, stop } = watch([{ liveStreamId: 'ls_1', videoId: 'vid_1', key: 'sk_1' }]);
  await expect.poll(() => calls.includes('endLapsed')).toBe(true);
  stop();
  expect(calls.slice(0, 2)).toEqual(['renew', 'endLapsed']);
});
