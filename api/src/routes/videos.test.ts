import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { paginationOf } from './videos.ts';

describe('pages', () => {
  it('describe the page', () => {
    assert.deepEqual(paginationOf({ page: 1, pageSize: 20 }, 0), {
      total: 0,
      page: 1,
      pageSize: 20,
      totalPages: 0,
      hasNext: false,
      hasPrevious: false,
    });
    assert.deepEqual(paginationOf({ page: 2, pageSize: 2 }, 5), {
      total: 5,
      page: 2,
      pageSize: 2,
      totalPages: 3,
      hasNext: true,
      hasPrevious: true,
    });
    assert.equal(paginationOf({ page: 3, pageSize: 2 }, 5).hasNext, false);
  });
});
