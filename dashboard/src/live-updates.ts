// The dashboard's live updates: one server-sent event stream per open tab, for the organization in
// view, all its environments (GET /dashboard/api/{orgID}/events). Each message names a video that
// changed (a webhook event without its data); the pages that show it read it again. This replaces
// asking every few seconds while something transcodes: an open tab costs its member one request per
// connection, plus the reads each change causes (docs/decisions/dashboard.md#live-updates).
import { useEffect } from 'preact/hooks';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';

/** When the server refused the stream (a rate limit, sign-out, a restart), the browser gives up on it: open it again after this. */
const REOPEN_AFTER_REFUSAL_MS = 60_000;

interface VideoEventMessage {
  event: string;
  videoId: string;
}

function markStale(queryClient: QueryClient, orgId: string, videoId?: string): void {
  // The list pages, and the video's page (every video's after a gap).
  void queryClient.invalidateQueries({ queryKey: ['videos', orgId] });
  void queryClient.invalidateQueries({ queryKey: videoId ? ['video', orgId, videoId] : ['video', orgId] });
}

/** Keeps the organization's stream open while the layout shows it. */
export function useLiveUpdates(orgId: string | undefined): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!orgId) return;
    let source: EventSource | undefined;
    let reopen: ReturnType<typeof setTimeout> | undefined;
    let opened = false;
    const open = () => {
      source = new EventSource(`/dashboard/api/${orgId}/events`);
      source.addEventListener('open', () => {
        // A reconnection: what changed while it was closed was not heard, so read it all again.
        if (opened) markStale(queryClient, orgId);
        opened = true;
      });
      source.addEventListener('video', (message) => {
        const { videoId } = JSON.parse((message as MessageEvent<string>).data) as VideoEventMessage;
        markStale(queryClient, orgId, videoId);
      });
      source.addEventListener('error', () => {
        // A dropped connection is reconnected by the browser (CONNECTING); an answer other than the
        // stream (429, 401, 503) closes it for good: try again later.
        if (source?.readyState !== EventSource.CLOSED) return;
        reopen = setTimeout(open, REOPEN_AFTER_REFUSAL_MS);
      });
    };
    open();
    return () => {
      clearTimeout(reopen);
      source?.close();
    };
  }, [orgId, queryClient]);
}
