import { test } from 'vitest';
import assert from 'node:assert/strict';
import { etagMatches } from './responses.ts';

test('etagMatches: any ETag of an If-None-Match list, weak or strong, or `*`', () => {
  const etag = '"abc"';
  assert.equal(etagMatches('"abc"', etag), true);
  assert.equal(etagMatches('W/"abc"', etag), true);
  assert.equal(etagMatches('"x", W/"abc" ,"y"', etag), true);
  assert.equal(etagMatches(' * ', etag), true);
  assert.equal(etagMatches('"abcd"', etag), false);
  assert.equal(etagMatches('abc', etag), false, 'an ETag is compared with its quotes');
  assert.equal(etagMatches('"x", "y"', etag), false);
});
