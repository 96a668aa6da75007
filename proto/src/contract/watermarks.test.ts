import { test } from 'vitest';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { imageHeaderOf, withWatermarkDefaults } from './watermarks.ts';

/** One frame of ffmpeg's test colour in `codec`, as bytes. */
function picture(codec: 'png' | 'mjpeg', size: string): Buffer {
  return execFileSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    `color=c=red:s=${size}`,
    '-frames:v',
    '1',
    '-c:v',
    codec,
    '-f',
    'image2pipe',
    '-',
  ]);
}

test('a PNG or a JPEG is known by its header, with its size; anything else is not', () => {
  assert.deepEqual(imageHeaderOf(picture('png', '300x120')), { format: 'png', width: 300, height: 120 });
  assert.deepEqual(imageHeaderOf(picture('mjpeg', '64x48')), { format: 'jpeg', width: 64, height: 48 });
  assert.equal(imageHeaderOf(new TextEncoder().encode('GIF89a and more bytes than that')), undefined);
  assert.equal(imageHeaderOf(picture('png', '300x120').subarray(0, 20)), undefined, 'cut short');
});

test('a watermark takes the defaults of what it leaves out', () => {
  assert.deepEqual(withWatermarkDefaults({ imageId: 'img_1', position: 'center' }), {
    imageId: 'img_1',
    position: 'center',
    marginPercent: 3,
    widthPercent: 12,
    opacity: 1,
  });
  assert.equal(withWatermarkDefaults({ imageId: 'img_1', position: 'center', opacity: 0 }).opacity, 0);
});
