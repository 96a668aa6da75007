import { test } from 'vitest';
import assert from 'node:assert/strict';
import { STATUS_CODES } from 'node:http';
import { errorEnvelope, errorStatusTexts } from './errors.ts';

test("the status texts are Node's, for every error status", () => {
  const nodeErrorTexts = Object.fromEntries(Object.entries(STATUS_CODES).filter(([status]) => Number(status) >= 400));
  assert.deepEqual({ ...errorStatusTexts }, nodeErrorTexts);
});

test('the envelope carries errors only when there are some', () => {
  assert.deepEqual(errorEnvelope(404, 'video_not_found', 'No video.'), {
    title: 'Not Found',
    status: 404,
    detail: 'No video.',
    code: 'video_not_found',
  });
  const errors = [{ message: 'too big', location: 'query.pageSize', value: 500 }];
  assert.deepEqual(errorEnvelope(400, 'invalid_page_size', 'too big', errors), {
    title: 'Bad Request',
    status: 400,
    detail: 'too big',
    code: 'invalid_page_size',
    errors,
  });
  assert.equal(errorEnvelope(599, 'x', 'y').title, 'Error');
});
