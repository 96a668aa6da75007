// The one way a page shows a failed call: the envelope's detail for a server answer (ApiError),
// the message of anything else.
import { ApiError } from '../api.ts';

export function ErrorNote({ error, testId, wide = false }: { error: unknown; testId?: string; wide?: boolean }) {
  if (!error) return null;
  const text = error instanceof ApiError ? error.detail : error instanceof Error ? error.message : String(error);
  return (
    <p class={wide ? 'wide error' : 'error'} role="alert" data-testid={testId}>
      {text}
    </p>
  );
}
