import { test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { jpegSize } from './jpeg-size.ts';

/** One marker segment: FF, the marker, a length that counts itself, the payload. */
function segment(marker: number, payload: number[]): number[] {
  const length = payload.length + 2;
  return [0xff, marker, length >> 8, length & 0xff, ...payload];
}

test('the size of a JPEG ffmpeg wrote is read from its header', () => {
  const made = spawnSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'color=c=red:size=322x182',
    '-frames:v',
    '1',
    '-f',
    'mjpeg',
    'pipe:1',
  ]);
  assert.equal(made.status, 0, made.stderr.toString());
  assert.deepEqual(jpegSize(made.stdout), { width: 322, height: 182 });
});

test('a JPEG size skips the markers that are not a frame header, and is undefined for what is not a JPEG', () => {
  // SOI, a Huffman table (C4: in the SOF range, but not one), then a progressive frame header (C2).
  const progressive = Buffer.from([
    0xff,
    0xd8,
    ...segment(0xc4, [0x00, ...Array<number>(16).fill(0), 0x00]),
    ...segment(0xc2, [8, 0x01, 0xe0, 0x02, 0x80, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]),
  ]);
  assert.deepEqual(jpegSize(progressive), { width: 640, height: 480 });
  assert.equal(jpegSize(Buffer.from('not a jpeg, not at all')), undefined);
  assert.equal(jpegSize(Buffer.from([0xff, 0xd8])), undefined, 'a header cut short');
});
