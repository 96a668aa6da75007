// A short label that copies a long value (a signed URL, the embed snippet): the page shows what the
// value is, never the value itself, so a private video's token is not printed as a wall of text. The
// whole value is the chip's to copy; its name ("Copy Playback URL" to a screen reader) says what it
// copies, and it says "Copied" for a moment after.
import { useEffect, useState } from 'preact/hooks';

/** How long "Copied" stays on the chip. */
const copiedMs = 2000;

export function CopyChip({ label, value, testId }: { label: string; value: string; testId?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const reset = setTimeout(() => setState('idle'), copiedMs);
    return () => clearTimeout(reset);
  }, [state]);
  return (
    <button
      type="button"
      class={`chip${state === 'copied' ? ' copied' : ''}`}
      data-testid={testId}
      onClick={() =>
        void navigator.clipboard.writeText(value).then(
          () => setState('copied'),
          () => setState('failed'),
        )
      }
    >
      <CopyIcon />
      {state === 'idle' && <span class="visually-hidden">Copy </span>}
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
    </button>
  );
}

/** A Copy button beside text that is shown in full (a share link just made). */
export function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={() =>
        void navigator.clipboard.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        )
      }
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

/** Two overlapping sheets, drawn rather than a font's glyph (not every system font has one). */
function CopyIcon() {
  return (
    <svg class="chip-icon" width="12" height="12" viewBox="0 0 12 12" aria-hidden="true" focusable="false">
      <rect x="3.5" y="0.5" width="8" height="8" rx="1.5" fill="none" stroke="currentColor" />
      <rect x="0.5" y="3.5" width="8" height="8" rx="1.5" fill="#fff" stroke="currentColor" />
    </svg>
  );
}
