import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { resolutionBandOf } from './resolution-bands.ts';

describe('resolutionBandOf', () => {
  it('puts every height in one band: HD from 1080p, LD up to 480p, SD between', () => {
    const bands = [240, 360, 480, 540, 720, 1079, 1080, 1440, 2160].map((height) => [height, resolutionBandOf(height)]);
    assert.deepEqual(bands, [
      [240, 'ld'],
      [360, 'ld'],
      [480, 'ld'],
      [540, 'sd'],
      [720, 'sd'],
      [1079, 'sd'],
      [1080, 'hd'],
      [1440, 'hd'],
      [2160, 'hd'],
    ]);
  });
});
