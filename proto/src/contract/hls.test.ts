import { test } from 'vitest';
import assert from 'node:assert/strict';
import { contentTypeForHlsFile, hlsSegmentName, hlsSegmentPattern, measureBandwidth } from './hls.ts';
import { objectKeys } from './storage-layout.ts';

test('content types of HLS files', () => {
  assert.equal(contentTypeForHlsFile('playlist.m3u8'), 'application/vnd.apple.mpegurl');
  assert.equal(contentTypeForHlsFile('init.mp4'), 'video/mp4');
  assert.equal(contentTypeForHlsFile('seg-00001.m4s'), 'video/iso.segment');
  assert.equal(contentTypeForHlsFile('default.jpg'), 'image/jpeg');
});

test("segment names are the ones ffmpeg's pattern writes", () => {
  const printf = (pattern: string, n: number) => pattern.replace(/%0(\d)d/, (_, width: string) => String(n).padStart(Number(width), '0'));
  for (const index of [0, 7, 12345, 123456]) assert.equal(hlsSegmentName(index), printf(hlsSegmentPattern, index));
  assert.equal(hlsSegmentName(3), 'seg-00003.m4s');
});

test('the bucket layout', () => {
  assert.equal(objectKeys.upload('org_1', 'env_1', 'upl_1', 'a.mp4'), 'uploads/org_1/env_1/upl_1/a.mp4');
  assert.equal(objectKeys.videoPrefix('vid_1'), 'videos/vid_1/');
  assert.equal(objectKeys.master('vid_1'), 'videos/vid_1/hls/master.m3u8');
  assert.equal(objectKeys.renditionDir('vid_1', 720), 'videos/vid_1/hls/720p');
  assert.equal(objectKeys.renditionPlaylist('vid_1', 720), 'videos/vid_1/hls/720p/playlist.m3u8');
  assert.equal(objectKeys.renditionInit('vid_1', 720), 'videos/vid_1/hls/720p/init.mp4');
  assert.equal(objectKeys.segment('vid_1', 720, 3), 'videos/vid_1/hls/720p/seg-00003.m4s');
  assert.equal(objectKeys.thumbnail('vid_1', 'default.jpg'), 'videos/vid_1/thumbs/default.jpg');
});

test('BANDWIDTH is the peak segment rate, AVERAGE-BANDWIDTH all bits over all time', () => {
  const measured = measureBandwidth([
    { sizeBytes: 600_000, durationSeconds: 6 }, // 800 kbit/s
    { sizeBytes: 750_000, durationSeconds: 6 }, // 1000 kbit/s
    { sizeBytes: 100_000, durationSeconds: 1 }, // 800 kbit/s
  ]);
  assert.equal(measured.peakBitsPerSecond, 1_000_000);
  assert.equal(measured.averageBitsPerSecond, Math.ceil((1_450_000 * 8) / 13));
  assert.equal(measured.durationSeconds, 13);
  assert.deepEqual(measureBandwidth([]), { peakBitsPerSecond: 0, averageBitsPerSecond: 0, durationSeconds: 0 });
});
