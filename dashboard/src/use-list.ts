// A page's list and the changes made to it, the way every list page works: the list is fetched
// under its query key, each change fetches it again once it succeeds, and the page shows the first
// failure of its changes or of the list (ErrorNote).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { rateLimitWaitMs } from './api.ts';

export interface ListOptions {
  /** False while the page lacks what the list needs (no environment, not an operator). */
  enabled?: boolean;
  /** Milliseconds between fetches, for a list that changes by itself (after a 429: when its window ends). */
  refetchInterval?: number;
}

export function useList<T>(queryKey: readonly unknown[], fetchList: () => Promise<T>, options: ListOptions = {}) {
  const queryClient = useQueryClient();
  const { enabled, refetchInterval } = options;
  const list = useQuery({
    queryKey,
    queryFn: fetchList,
    enabled,
    refetchInterval: (query) => rateLimitWaitMs(query.state.error) ?? refetchInterval ?? false,
  });
  const refetch = () => queryClient.invalidateQueries({ queryKey });
  return { list, refetch };
}

/** A change to a list: `onSuccess` (the page's own follow-up) runs, then the list is fetched again. */
export function useListChange<R, V = void>(
  list: { refetch: () => Promise<void> },
  mutationFn: (variables: V) => Promise<R>,
  onSuccess?: (result: R) => unknown,
) {
  return useMutation({
    mutationFn,
    onSuccess: async (result: R) => {
      await onSuccess?.(result);
      await list.refetch();
    },
  });
}

/** The first failure among a page's calls, for ErrorNote. */
export function firstError(...calls: { error: unknown }[]): unknown {
  return calls.find((call) => call.error)?.error ?? null;
}
