import { test } from 'vitest';
import assert from 'node:assert/strict';
import { redactUrls } from './redact.ts';

test('failure reasons lose the presigned URLs ffmpeg quotes', () => {
  const detail =
    'the source is not a readable video: http://127.0.0.1:1/kino/uploads/o/e/u/x.mp4?X-Amz-Signature=abc&x-id=GetObject: Invalid data found when processing input';
  assert.equal(redactUrls(detail), 'the source is not a readable video: Invalid data found when processing input');
  assert.equal(redactUrls('could not open https://s3.example/a?sig=1'), 'could not open (url)');
  assert.equal(redactUrls('ffmpeg exited with code 1'), 'ffmpeg exited with code 1');
  assert.equal(
    redactUrls('http://s3:7333/kino/a.mp4?X-Amz-Signature=secret&X-Amz-Credential=key: Server returned 404'),
    'Server returned 404',
  );
});
