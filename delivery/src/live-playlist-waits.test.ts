// Blocking reloads' waits: held until the stored playlist meets the condition, one read loop per
// playlist however many wait, the playlist as it is at the deadline, and nothing for a client gone.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { LivePlaylistWaits } from './live-playlist-waits.ts';

function storage() {
  let text = 'v1';
  const reads: string[] = [];
  return {
    set: (value: string) => (text = value),
    reads,
    read: async (key: string) => {
      reads.push(key);
      const data = Buffer.from(text);
      return { key, size: data.length, etag: `"${text}"`, data };
    },
  };
}

test('a wait is answered once the playlist meets its condition, and not before', async () => {
  const stored = storage();
  const waits = new LivePlaylistWaits(stored.read, 10);
  let answered = false;
  const waiting = waits
    .wait('p', (text) => text === 'v2', 5_000, new AbortController().signal)
    .then((answer) => {
      answered = true;
      return answer;
    });
  while (stored.reads.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(answered, false, 'held while the playlist lacks it');
  stored.set('v2');
  const answer = await waiting;
  assert.equal(answer.satisfied, true);
  assert.equal(answer.object?.data.toString(), 'v2');
});

test('waits on one playlist share one read loop, which stops when nobody waits', async () => {
  const stored = storage();
  const waits = new LivePlaylistWaits(stored.read, 20);
  const signal = new AbortController().signal;
  const both = Promise.all([
    waits.wait('p', (t) => t === 'v2', 5_000, signal),
    waits.wait('p', (t) => t === 'v2', 5_000, signal),
  ]);
  while (stored.reads.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
  stored.set('v2');
  await both;
  const reads = stored.reads.length;
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(stored.reads.length, reads, 'no reads once answered');
  assert.ok(reads <= 3, `${reads} reads for two waiters`);
});

test('the deadline answers with the playlist as it is; a client gone gets nothing', async () => {
  const stored = storage();
  const waits = new LivePlaylistWaits(stored.read, 10);
  const late = await waits.wait('p', () => false, 50, new AbortController().signal);
  assert.deepEqual([late.satisfied, late.object?.data.toString()], [false, 'v1']);
  const leaving = new AbortController();
  const gone = waits.wait('p', () => false, 5_000, leaving.signal);
  leaving.abort();
  assert.deepEqual(await gone, { object: undefined, satisfied: false });
});

test('a part’s place: from the last read when listed there, else once a read lists it', async () => {
  const stored = storage();
  const listing = (parts: string[]) =>
    `#EXTM3U\n${parts.map((p) => `#EXT-X-PART:DURATION=1.0,URI="${p}"`).join('\n')}\n`;
  stored.set(listing(['part-00000.m4s']));
  const waits = new LivePlaylistWaits(stored.read, 10);
  const signal = new AbortController().signal;
  assert.deepEqual(await waits.placeOfPart('p', 'part-00000.m4s', 1_000, signal), { segment: 0, first: true });
  const reads = stored.reads.length;
  // Stored before the playlist names it: held until a read lists it.
  const second = waits.placeOfPart('p', 'part-00001.m4s', 5_000, signal);
  while (stored.reads.length < reads + 2) await new Promise((resolve) => setTimeout(resolve, 5));
  stored.set(listing(['part-00000.m4s', 'part-00001.m4s']));
  assert.deepEqual(await second, { segment: 0, first: false });
  const after = stored.reads.length;
  assert.deepEqual(await waits.placeOfPart('p', 'part-00000.m4s', 1_000, signal), { segment: 0, first: true });
  assert.equal(stored.reads.length, after, 'a part the last read lists needs no read');
  assert.equal(await waits.placeOfPart('p', 'part-00009.m4s', 50, signal), undefined, 'never listed');
});
