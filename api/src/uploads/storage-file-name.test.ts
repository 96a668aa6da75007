import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { storageFileName } from './storage-file-name.ts';

describe('upload file names', () => {
  it('never add path segments to the storage key', () => {
    assert.equal(storageFileName('clip.mp4'), 'clip.mp4');
    assert.equal(storageFileName('../../etc/passwd'), 'etc_passwd');
    assert.equal(storageFileName('my holiday/video (1).mov'), 'my_holiday_video_1_.mov');
    assert.equal(storageFileName('café.mp4'), 'cafe_.mp4');
    assert.equal(storageFileName('...'), 'upload');
    assert.equal(storageFileName('a'.repeat(500) + '.mp4').length, 120);
  });
});
