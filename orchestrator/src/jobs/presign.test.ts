// The URLs a job carries: exactly its objects, each PUT bound to its type, living as long as the attempt may.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { presignHlsOutputs, urlLifetimeSeconds } from './presign.ts';

const storage = {
  presignPut: (key: string, seconds: number, contentType?: string) =>
    Promise.resolve(`${key} ${seconds} ${contentType}`),
};
const renditions = [{ key: '360p', segmentSeconds: 6 }];

test('a whole encode: the playlist, the init segment, and a segment URL for each 6 s of the duration and 2 more', async () => {
  const urls = await presignHlsOutputs(storage, 'vid_1', renditions, 13, undefined, 7200);
  assert.deepEqual(Object.keys(urls), [
    '360p/playlist.m3u8',
    '360p/init.mp4',
    '360p/seg-00000.m4s',
    '360p/seg-00001.m4s',
    '360p/seg-00002.m4s',
    '360p/seg-00003.m4s',
    '360p/seg-00004.m4s',
  ]);
  assert.equal(urls['360p/seg-00004.m4s'], 'videos/vid_1/hls/360p/seg-00004.m4s 7200 video/iso.segment');
  assert.equal(urls['360p/init.mp4'], 'videos/vid_1/hls/360p/init.mp4 7200 video/mp4');
});

test('a chunk: its own segments only; the init segment with the first chunk, 2 spare URLs with the last', async () => {
  const names = async (index: number, firstSegment: number, last: boolean) =>
    Object.keys(
      await presignHlsOutputs(
        storage,
        'vid_1',
        renditions,
        60,
        { chunk: { index, firstSegment, segmentCount: 2, startSeconds: firstSegment * 6, durationSeconds: 12 }, last },
        7200,
      ),
    );
  assert.deepEqual(await names(0, 0, false), ['360p/init.mp4', '360p/seg-00000.m4s', '360p/seg-00001.m4s']);
  assert.deepEqual(await names(1, 2, false), ['360p/seg-00002.m4s', '360p/seg-00003.m4s']);
  assert.deepEqual(await names(2, 4, true), [
    '360p/seg-00004.m4s',
    '360p/seg-00005.m4s',
    '360p/seg-00006.m4s',
    '360p/seg-00007.m4s',
  ]);
});

test("URLs live as long as the attempt and 10 minutes, at least 2 hours, at most SigV4's 7 days", () => {
  assert.equal(urlLifetimeSeconds(60_000), 2 * 60 * 60);
  assert.equal(urlLifetimeSeconds(3 * 60 * 60_000), 3 * 60 * 60 + 600);
  assert.equal(urlLifetimeSeconds(30 * 24 * 60 * 60_000), 7 * 24 * 60 * 60);
});

test('a bootstrap window: its bootstrap segments in the first segment, then the 6 s segments its pieces are joined into', async () => {
  const names = async (chunk: { index: number; segmentCount: number; startSeconds: number; durationSeconds: number }) =>
    Object.keys(
      await presignHlsOutputs(
        storage,
        'vid_1',
        renditions,
        60,
        { chunk: { ...chunk, firstSegment: 0, bootstrap: true }, last: false },
        7200,
      ),
    );
  assert.deepEqual(await names({ index: 0, segmentCount: 1, startSeconds: 0, durationSeconds: 2 }), [
    '360p/init.mp4',
    '360p/boot-0.m4s',
  ]);
  assert.deepEqual(await names({ index: 1, segmentCount: 1, startSeconds: 2, durationSeconds: 4 }), [
    '360p/boot-1.m4s',
    '360p/boot-2.m4s',
  ]);
  // 2 to 18 s: the rest of segment 0, then segments 1 and 2 (never segment 0 itself: it is joined from the three).
  assert.deepEqual(await names({ index: 1, segmentCount: 3, startSeconds: 2, durationSeconds: 16 }), [
    '360p/boot-1.m4s',
    '360p/boot-2.m4s',
    '360p/seg-00001.m4s',
    '360p/seg-00002.m4s',
  ]);
});
