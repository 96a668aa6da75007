import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { planChunks, renderMediaPlaylist } from './chunks.ts';

describe('planChunks', () => {
  it('cuts on multiples of the segment length; the last chunk runs to the end', () => {
    assert.deepEqual(
      planChunks(20, 6, 6).map((c) => [c.index, c.startSeconds, c.durationSeconds, c.firstSegment, c.segmentCount]),
      [
        [0, 0, 6, 0, 1],
        [1, 6, 6, 1, 1],
        [2, 12, 8, 2, 2],
      ],
    );
  });

  it('rounds the chunk length down to whole segments and joins a sliver to the chunk before it', () => {
    assert.deepEqual(planChunks(125, 32, 6).map((c) => [c.startSeconds, c.durationSeconds, c.segmentCount]), [
      [0, 30, 5],
      [30, 30, 5],
      [60, 30, 5],
      [90, 35, 6],
    ]);
  });

  it('a video no longer than a chunk, or chunking off (0), is one chunk: the whole-file encode', () => {
    assert.equal(planChunks(30, 30, 6).length, 1);
    assert.equal(planChunks(35, 30, 6).length, 1);
    assert.deepEqual(planChunks(600, 0, 6), [{ index: 0, startSeconds: 0, durationSeconds: 600, firstSegment: 0, segmentCount: 100 }]);
  });
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
    assert.throws(() => renderMediaPlaylist([{ name: 'seg-00000.m4s', durationSeconds: 6 }, { name: 'seg-00002.m4s', durationSeconds: 6 }]), /do not run on/);
  });
});
