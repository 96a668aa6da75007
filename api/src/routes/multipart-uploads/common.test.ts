import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { partsWanting } from './common.ts';

const MiB = 1024 ** 2;
/** A 40 MiB file in 16 MiB parts: 16, 16 and 8 MiB. */
const upload = { file_size: 40 * MiB, part_size: 16 * MiB, part_count: 3 };
const part = (partNumber: number, size: number) => ({ partNumber, size, etag: `"etag-${partNumber}"` });

describe('the parts a multipart upload still wants', () => {
  it('none when every part is there at its size, the last one holding what is left', () => {
    assert.deepEqual(partsWanting(upload, [part(1, 16 * MiB), part(2, 16 * MiB), part(3, 8 * MiB)]), []);
  });

  it('the missing ones and the ones of another size, in order', () => {
    assert.deepEqual(partsWanting(upload, [part(3, 16 * MiB), part(1, 16 * MiB)]), [2, 3]);
    assert.deepEqual(partsWanting(upload, []), [1, 2, 3]);
  });

  it('ignores parts beyond the upload', () => {
    assert.deepEqual(
      partsWanting(upload, [part(1, 16 * MiB), part(2, 16 * MiB), part(3, 8 * MiB), part(4, 5 * MiB)]),
      [],
    );
  });
});
