import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { ValidationError } from '../../http/errors.ts';
import { listFilters, paginationOf } from './list.ts';

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

describe('list filters', () => {
  it('take the defaults: the first 20, newest first', () => {
    assert.deepEqual(listFilters({}), {
      page: 1,
      pageSize: 20,
      sortBy: 'created_at',
      sortDir: 'desc',
      status: undefined,
      search: undefined,
      externalId: undefined,
      liveStreamId: undefined,
      createdFrom: undefined,
      createdBefore: undefined,
    });
    assert.equal(listFilters({ search: '' }).search, undefined, 'an empty search filters nothing');
  });

  it('count `to` in: everything created before the next UTC midnight', () => {
    const filters = listFilters({ from: '2026-02-28', to: '2026-02-28' });
    assert.equal(filters.createdFrom?.toISOString(), '2026-02-28T00:00:00.000Z');
    assert.equal(filters.createdBefore?.toISOString(), '2026-03-01T00:00:00.000Z');
  });

  it('refuse `from` after `to` with invalid_date_range on query.from', () => {
    assert.throws(
      () => listFilters({ from: '2026-03-02', to: '2026-03-01' }),
      (error: unknown) =>
        error instanceof ValidationError &&
        error.code === 'invalid_date_range' &&
        error.errors?.[0]?.location === 'query.from',
    );
  });
});
