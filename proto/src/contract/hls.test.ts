import { describe, it, test } from 'vitest';
import assert from 'node:assert/strict';
import {
  contentTypeForHlsFile,
  hlsSegmentName,
  hlsSegmentPattern,
  hlsTargetDuration,
  measureBandwidth,
  plannedBootstrapSegments,
  plannedSegments,
  renderMediaPlaylist,
  withAbsoluteUris,
} from './hls.ts';
import { declaredPeakKbps } from './encoding.ts';
import { objectKeys } from './storage-layout.ts';

test('content types of HLS files', () => {
  assert.equal(contentTypeForHlsFile('playlist.m3u8'), 'application/vnd.apple.mpegurl');
  assert.equal(contentTypeForHlsFile('init.mp4'), 'video/mp4');
  assert.equal(contentTypeForHlsFile('seg-00001.m4s'), 'video/iso.segment');
  assert.equal(contentTypeForHlsFile('default.jpg'), 'image/jpeg');
});

test("segment names are the ones ffmpeg's pattern writes", () => {
  const printf = (pattern: string, n: number) =>
    pattern.replace(/%0(\d)d/, (_, width: string) => String(n).padStart(Number(width), '0'));
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
  // A rendition in another codec: its folder is its key, beside the H.264 rung's.
  assert.equal(objectKeys.renditionDir('vid_1', '720p'), 'videos/vid_1/hls/720p');
  assert.equal(objectKeys.renditionPlaylist('vid_1', '720p-av1'), 'videos/vid_1/hls/720p-av1/playlist.m3u8');
  assert.equal(objectKeys.renditionInit('vid_1', '720p-hevc'), 'videos/vid_1/hls/720p-hevc/init.mp4');
  assert.equal(objectKeys.segment('vid_1', '720p-av1', 3), 'videos/vid_1/hls/720p-av1/seg-00003.m4s');
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

test('a short last segment counts only with the one before it: it cannot drive BANDWIDTH', () => {
  // The one-frame tail of #36: a keyframe at 2,363 kbit/s after a segment at 641 kbit/s.
  const tail = { sizeBytes: Math.round(2_363_000 / 8 / 24), durationSeconds: 1 / 24 };
  const measured = measureBandwidth([{ sizeBytes: (641_000 / 8) * 6, durationSeconds: 6 }, tail]);
  const together = Math.ceil((((641_000 / 8) * 6 + tail.sizeBytes) * 8) / (6 + 1 / 24));
  assert.equal(measured.peakBitsPerSecond, together);
  assert.ok(measured.peakBitsPerSecond < 660_000, `${measured.peakBitsPerSecond}`);
  // Every whole segment is still bounded, wherever it is.
  const segments = [
    { sizeBytes: 450_000, durationSeconds: 6 }, // 600 kbit/s
    { sizeBytes: 900_000, durationSeconds: 6 }, // 1200 kbit/s
    { sizeBytes: 450_000, durationSeconds: 6 },
    { sizeBytes: 60_000, durationSeconds: 0.6 }, // 800 kbit/s, a tail of its own
  ];
  assert.equal(measureBandwidth(segments).peakBitsPerSecond, 1_200_000);
  assert.equal(
    measureBandwidth([...segments, { sizeBytes: 40_000, durationSeconds: 0.1 }]).peakBitsPerSecond,
    1_200_000,
  );
  // A run lasts between half and one and a half target durations: two short segments together count.
  assert.equal(
    measureBandwidth([
      { sizeBytes: 300_000, durationSeconds: 6 },
      { sizeBytes: 600_000, durationSeconds: 2 },
      { sizeBytes: 600_000, durationSeconds: 2 },
    ]).peakBitsPerSecond,
    2_400_000,
  );
  // Shorter than half a target duration in all: the average.
  assert.equal(measureBandwidth([{ sizeBytes: 1000, durationSeconds: 0.4 }]).peakBitsPerSecond, 20_000);
});

test('the target duration is the longest segment rounded to the nearest integer', () => {
  assert.equal(hlsTargetDuration([{ durationSeconds: 6 }, { durationSeconds: 6.4 }]), 6);
  assert.equal(hlsTargetDuration([{ durationSeconds: 6.006 }, { durationSeconds: 6.5 }]), 7);
  assert.equal(hlsTargetDuration([{ durationSeconds: 0.3 }]), 1);
  assert.equal(hlsTargetDuration([]), 1);
});

describe('renderMediaPlaylist', () => {
  it('writes a VOD playlist of the segments with one init segment', () => {
    const text = renderMediaPlaylist([
      { name: 'seg-00000.m4s', durationSeconds: 6 },
      { name: 'seg-00001.m4s', durationSeconds: 2.5 },
    ]);
    assert.equal(
      text,
      '#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-INDEPENDENT-SEGMENTS\n' +
        '#EXT-X-MAP:URI="init.mp4"\n#EXTINF:6.000000,\nseg-00000.m4s\n#EXTINF:2.500000,\nseg-00001.m4s\n#EXT-X-ENDLIST\n',
    );
  });

  it('refuses segments that do not run on (a chunk missing)', () => {
    assert.throws(
      () =>
        renderMediaPlaylist([
          { name: 'seg-00000.m4s', durationSeconds: 6 },
          { name: 'seg-00002.m4s', durationSeconds: 6 },
        ]),
      /do not run on/,
    );
  });
});

test('planned segments: the cuts on the first frame at or past each 6 s, the tail folded as the keyframes are', () => {
  const planned = (durationSeconds: number, frameRate: number, videoSeconds = durationSeconds) =>
    plannedSegments({ durationSeconds, videoSeconds, frameRate, segmentSeconds: 6 }).map((s) => [
      s.name,
      s.durationSeconds,
    ]);
  // 29.97 fps: the frame at or past 6 s is at 6.006 s.
  assert.deepEqual(planned(20.02, 30000 / 1001), [
    ['seg-00000.m4s', 6.006],
    ['seg-00001.m4s', 6.006],
    ['seg-00002.m4s', 6.006],
    ['seg-00003.m4s', 2.002],
  ]);
  // A few frames past 12 s fold into the segment before them.
  assert.deepEqual(planned(12.08, 25), [
    ['seg-00000.m4s', 6],
    ['seg-00001.m4s', 6.08],
  ]);
  assert.deepEqual(planned(4, 25), [['seg-00000.m4s', 4]]);
  // Audio a little longer than the picture: the last segment runs to the end of the audio.
  assert.deepEqual(planned(12.3, 25, 12.2), [
    ['seg-00000.m4s', 6],
    ['seg-00001.m4s', 6.3],
  ]);
  // Audio longer by less than half a second: in the last segment, the picture's keyframes unchanged.
  assert.deepEqual(planned(6.3, 24, 5.9), [['seg-00000.m4s', 6.3]]);
  // Audio much longer than the picture: the picture holds its last frame to the sound's end, cut as any picture.
  assert.deepEqual(planned(9, 24, 5), [
    ['seg-00000.m4s', 6],
    ['seg-00001.m4s', 3],
  ]);
});

test('the peak a segment can reach under the rate control: 2x the target for 6 s of VBR, 1.17x for CBR', () => {
  assert.equal(declaredPeakKbps('variableBitrate', 1000, 6), 2000);
  assert.equal(Math.round(declaredPeakKbps('constantBitrate', 1200, 6)), 1400);
});

test('bootstrap segments: the first segment cut on the 2 s keyframe grid, listed in its place in the bootstrap playlist', () => {
  const segments = plannedSegments({
    durationSeconds: 13,
    videoSeconds: 13,
    frameRate: 30000 / 1001,
    segmentSeconds: 6,
  });
  const bootstrap = plannedBootstrapSegments(segments[0]!, 30000 / 1001);
  // The first frame at or past 2, 4 and 6 s at 29.97 fps: frames 60, 120 and 180 (2.002, 4.004, 6.006 s).
  assert.deepEqual(
    bootstrap.map((b) => [b.name, b.durationSeconds]),
    [
      ['boot-0.m4s', 2.002],
      ['boot-1.m4s', 2.002],
      ['boot-2.m4s', 2.002],
    ],
  );
  const playlist = renderMediaPlaylist(segments, bootstrap);
  assert.deepEqual(
    playlist.split('\n').filter((line) => line && !line.startsWith('#')),
    ['boot-0.m4s', 'boot-1.m4s', 'boot-2.m4s', 'seg-00001.m4s', 'seg-00002.m4s'],
  );
  assert.match(playlist, /#EXT-X-TARGETDURATION:6\n/, 'the 6 s segments set the target');
  assert.doesNotMatch(renderMediaPlaylist(segments), /boot-/);
});

test('a playlist made readable from one URL: its init and segments named by absolute URLs, every other line kept', () => {
  const playlist = renderMediaPlaylist([
    { name: 'seg-00000.m4s', durationSeconds: 6 },
    { name: 'seg-00001.m4s', durationSeconds: 1.3 },
  ]);
  const absolute = withAbsoluteUris(
    playlist,
    (uri) => `https://s3.test/videos/v/hls/720p/${uri}?X-Amz-Signature=a%2Fb&x=1`,
  );
  assert.deepEqual(
    absolute.split('\n').filter((line) => line.includes('https:') || line.startsWith('#EXTINF')),
    [
      '#EXT-X-MAP:URI="https://s3.test/videos/v/hls/720p/init.mp4?X-Amz-Signature=a%2Fb&x=1"',
      '#EXTINF:6.000000,',
      'https://s3.test/videos/v/hls/720p/seg-00000.m4s?X-Amz-Signature=a%2Fb&x=1',
      '#EXTINF:1.300000,',
      'https://s3.test/videos/v/hls/720p/seg-00001.m4s?X-Amz-Signature=a%2Fb&x=1',
    ],
  );
  assert.equal(absolute.split('\n').length, playlist.split('\n').length);
});
