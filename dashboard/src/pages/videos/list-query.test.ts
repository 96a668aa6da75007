import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { defaultListState, listQueryString, listStateFromSearch, sortedBy } from './list-query.ts';

describe('the videos table state and the list query', () => {
  it('round-trips every parameter of the API list query', () => {
    const state = {
      page: 3,
      pageSize: 50,
      sortBy: 'name',
      sortDir: 'asc',
      status: 'failed',
      search: 'cat video',
      from: '2026-11-01',
      to: '2026-11-23',
    } as const;
    const query = listQueryString(state);
    assert.equal(
      query,
      'page=3&pageSize=50&sortBy=name&sortDir=asc&status=failed&search=cat+video&from=2026-11-01&to=2026-11-23',
    );
    assert.deepEqual(listStateFromSearch(`?${query}`), state);
  });

  it('leaves defaults out and reads an empty query as the defaults', () => {
    assert.equal(listQueryString(defaultListState), '');
    assert.deepEqual(listStateFromSearch(''), {
      ...defaultListState,
      status: undefined,
      search: undefined,
      from: undefined,
      to: undefined,
    });
  });

  it('falls back to the default for values the API would refuse', () => {
    const state = listStateFromSearch('?page=0&pageSize=500&sortBy=size&sortDir=up&status=gone&from=yesterday');
    assert.deepEqual(
      {
        page: state.page,
        pageSize: state.pageSize,
        sortBy: state.sortBy,
        sortDir: state.sortDir,
        status: state.status,
        from: state.from,
      },
      { page: 1, pageSize: 20, sortBy: 'created_at', sortDir: 'desc', status: undefined, from: undefined },
    );
  });

  it('sorts names from A and numbers from the largest first, flips the sorted column, and goes back to page 1', () => {
    const onPage4 = { ...defaultListState, page: 4 };
    assert.deepEqual(sortedBy(onPage4, 'name'), { ...defaultListState, sortBy: 'name', sortDir: 'asc', page: 1 });
    assert.equal(sortedBy(sortedBy(onPage4, 'name'), 'name').sortDir, 'desc');
    assert.equal(sortedBy(onPage4, 'duration').sortDir, 'desc');
    assert.equal(sortedBy(onPage4, 'created_at').sortDir, 'asc');
  });
});
