import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { estimateViews, formatDuration, formatViews, thumbnailSize, thumbnailUrl } from './format.ts';

describe('formatDuration', () => {
  it('writes minutes:seconds', () => {
    assert.equal(formatDuration(0), '0:00');
    assert.equal(formatDuration(null), '0:00');
    assert.equal(formatDuration(4), '0:04');
    assert.equal(formatDuration(59.6), '1:00');
    assert.equal(formatDuration(125.4), '2:05');
    assert.equal(formatDuration(3600), '60:00');
    assert.equal(formatDuration(4530), '75:30');
  });
});

describe('served', () => {
  it('estimates views as segments ÷ (duration ÷ 6)', () => {
    assert.equal(estimateViews(0, 60), 0);
    assert.equal(estimateViews(10, 60), 1);
    assert.equal(estimateViews(25, 60), 2);
    assert.equal(estimateViews(100, null), 0);
    // A clip shorter than one segment counts one view per segment.
    assert.equal(estimateViews(3, 2), 3);
  });

  it('writes counts like "1.2K views"', () => {
    assert.equal(formatViews(0), '0 views');
    assert.equal(formatViews(1), '1 view');
    assert.equal(formatViews(2), '2 views');
    assert.equal(formatViews(999), '999 views');
    assert.equal(formatViews(1000), '1K views');
    assert.equal(formatViews(1200), '1.2K views');
    assert.equal(formatViews(1999), '1.9K views');
    assert.equal(formatViews(15_300), '15.3K views');
    assert.equal(formatViews(999_999), '999K views');
    assert.equal(formatViews(1_000_000), '1M views');
    assert.equal(formatViews(2_500_000_000), '2.5B views');
  });
});

describe('thumbnails', () => {
  it('keep the aspect ratio with 640 on the long edge', () => {
    assert.deepEqual(thumbnailSize(1920, 1080), { width: 640, height: 360 });
    assert.deepEqual(thumbnailSize(1080, 1920), { width: 360, height: 640 });
    assert.deepEqual(thumbnailSize(320, 240), { width: 640, height: 480 });
    assert.deepEqual(thumbnailSize(null, null), { width: 640, height: 360 });
  });

  it('point at the delivery host', () => {
    assert.equal(
      thumbnailUrl('https://cdn.example.com', 'vid_1', 1280, 720),
      'https://cdn.example.com/t/vid_1/640x360.jpg',
    );
  });
});
