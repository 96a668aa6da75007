import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { audioCodecs, compressionRatios, pixelFormats, rateControlModes, videoQualities } from '@kino/proto/contract';
import {
  audioCodecLabels,
  compressionLabels,
  labelOf,
  maxEdgeLabel,
  pixelFormatLabels,
  rateControlLabels,
  videoQualityLabels,
} from './setting-labels.ts';

describe('setting labels', () => {
  it('names every value of the vocabulary in words, never as the value itself', () => {
    const tables: [readonly string[], Readonly<Record<string, string>>][] = [
      [videoQualities, videoQualityLabels],
      [rateControlModes, rateControlLabels],
      [compressionRatios, compressionLabels],
      [audioCodecs, audioCodecLabels],
      [pixelFormats, pixelFormatLabels],
    ];
    for (const [values, labels] of tables) {
      for (const value of values) {
        const label = labelOf(labels, value);
        assert.notEqual(label, value, `${value} has a label of its own`);
        assert.doesNotMatch(label, /^[a-z]+[A-Z]/, `${label}: no camelCase`);
      }
      assert.equal(new Set(values.map((value) => labels[value])).size, values.length, 'no two values share a label');
    }
  });

  it('reads the values people asked about as words', () => {
    assert.equal(labelOf(rateControlLabels, 'variableBitrate'), 'Variable bitrate');
    assert.equal(labelOf(compressionLabels, 'veryfast'), 'Fast encode');
    assert.equal(labelOf(pixelFormatLabels, 'yuv420p10b'), '10-bit 4:2:0');
    assert.equal(maxEdgeLabel(-1), 'No limit (the source’s size)');
    assert.equal(maxEdgeLabel(720), '720 px');
  });

  it('shows a value it has no label for as it is, rather than nothing', () => {
    assert.equal(labelOf(compressionLabels, 'placebo'), 'placebo');
    assert.equal(labelOf(compressionLabels, 'toString'), 'toString');
  });
});
