import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withoutUrls } from './node-work.ts';

void test('failure reasons lose the presigned URLs ffmpeg quotes', () => {
  const detail =
    'the source is not a readable video: http://127.0.0.1:1/kino/uploads/o/e/u/x.mp4?X-Amz-Signature=abc&x-id=GetObject: Invalid data found when processing input';
  assert.equal(withoutUrls(detail), 'the source is not a readable video: Invalid data found when processing input');
  assert.equal(withoutUrls('could not open https://s3.example/a?sig=1'), 'could not open (url)');
  assert.equal(withoutUrls('ffmpeg exited with code 1'), 'ffmpeg exited with code 1');
});
