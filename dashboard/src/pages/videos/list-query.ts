// The videos table's state is the API's list query (spec, "List videos": page, pageSize, sortBy,
// sortDir, status, search, from, to), kept in the page's own query string so that a reload or a
// shared link shows the same page. One mapping both ways; defaults are left out of both URLs.
import type { ListVideosParams } from '@kino/sdk';
import { videoStatuses } from '@kino/proto/contract';

export type VideoListState = Required<Pick<ListVideosParams, 'page' | 'pageSize' | 'sortBy' | 'sortDir'>> &
  Pick<ListVideosParams, 'status' | 'search' | 'from' | 'to'>;

export const defaultListState: VideoListState = { page: 1, pageSize: 20, sortBy: 'created_at', sortDir: 'desc' };

export const sortColumns: ReadonlyArray<VideoListState['sortBy']> = ['created_at', 'name', 'duration', 'status'];
export const pageSizes = [10, 20, 50, 100] as const;

const day = /^\d{4}-\d{2}-\d{2}$/;

function oneOf<T extends string>(value: string | null, allowed: readonly T[]): T | undefined {
  return allowed.find((candidate) => candidate === value);
}

function positiveInteger(value: string | null): number | undefined {
  const number = Number(value);
  return value !== null && Number.isInteger(number) && number >= 1 ? number : undefined;
}

/** The table's state from the page's query string; anything unknown or malformed falls back to the default. */
export function listStateFromSearch(search: string): VideoListState {
  const params = new URLSearchParams(search);
  const pageSize = positiveInteger(params.get('pageSize'));
  return {
    page: positiveInteger(params.get('page')) ?? defaultListState.page,
    pageSize: pageSize !== undefined && pageSize <= 100 ? pageSize : defaultListState.pageSize,
    sortBy: oneOf(params.get('sortBy'), sortColumns) ?? defaultListState.sortBy,
    sortDir: oneOf(params.get('sortDir'), ['asc', 'desc'] as const) ?? defaultListState.sortDir,
    status: oneOf(params.get('status'), videoStatuses),
    search: params.get('search')?.trim() || undefined,
    from: day.test(params.get('from') ?? '') ? params.get('from')! : undefined,
    to: day.test(params.get('to') ?? '') ? params.get('to')! : undefined,
  };
}

/** The query string for both the API call and the page's URL: the state's non-default members. */
export function listQueryString(state: VideoListState): string {
  const params = new URLSearchParams();
  for (const name of ['page', 'pageSize', 'sortBy', 'sortDir', 'status', 'search', 'from', 'to'] as const) {
    const value = state[name];
    if (value === undefined || value === '' || value === defaultListState[name as keyof typeof defaultListState])
      continue;
    params.set(name, String(value));
  }
  return params.toString();
}

/**
 * The direction a column sorts in first: words from A, as a person reads a list of names; numbers
 * and dates from the largest, the newest (issue 59: names started at Z).
 */
const firstSortDir: Record<VideoListState['sortBy'], VideoListState['sortDir']> = {
  name: 'asc',
  status: 'asc',
  duration: 'desc',
  created_at: 'desc',
};

/** Clicking a column's header: sort by it in its first direction; clicking the sorted column flips it. Back to page 1. */
export function sortedBy(state: VideoListState, column: VideoListState['sortBy']): VideoListState {
  const sortDir = state.sortBy === column ? (state.sortDir === 'asc' ? 'desc' : 'asc') : firstSortDir[column];
  return { ...state, sortBy: column, sortDir, page: 1 };
}
