// The one way a page shows a failed call: the envelope's detail for a server answer (ApiError),
// the message of anything else, and for a rate limit what happens next in plain words.
import { ApiError, isRateLimited } from '../api.ts';

/** What a person reads about a failed call. */
export function describeError(error: unknown): string {
  if (isRateLimited(error)) {
    const at = new Date(error.retryAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    const minutes = Math.max(1, Math.ceil((error.retryAt - Date.now()) / 60_000));
    return (
      `Your dashboard has reached its request limit for now. This page tries again by itself at ${at} ` +
      `(in about ${minutes} min). The organization's API keys have limits of their own and are not affected.`
    );
  }
  return error instanceof ApiError ? error.detail : error instanceof Error ? error.message : String(error);
}

export function ErrorNote({ error, testId, wide = false }: { error: unknown; testId?: string; wide?: boolean }) {
  if (!error) return null;
  return (
    <p
      class={wide ? 'wide error' : 'error'}
      role="alert"
      data-testid={testId}
      data-rate-limited={isRateLimited(error) || undefined}
    >
      {describeError(error)}
    </p>
  );
}
