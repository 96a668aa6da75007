// A secret shown once (a new API key, a webhook's signing secret): the value, a copy button, and a
// button that forgets it. It lives only in the page's memory: nothing stores it.
import { useState } from 'preact/hooks';

export function SecretOnce({
  label,
  value,
  onDismiss,
  testId,
}: {
  label: string;
  value: string;
  onDismiss(): void;
  testId: string;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret" role="status">
      <strong>{label}</strong> This is the only time it is shown: copy it now.
      <code data-testid={testId}>{value}</code>
      <button
        type="button"
        onClick={() => {
          navigator.clipboard.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          );
        }}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>{' '}
      <button type="button" onClick={onDismiss}>
        Done
      </button>
    </div>
  );
}

/** A date for a table cell: local date and time, or a dash. */
export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}
