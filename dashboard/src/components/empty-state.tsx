// A list with nothing in it yet: one look for every page, saying what the list is for and what to
// do next, here or from a terminal (the CLI's command for it), as Mux's getting-started states do.
import type { ComponentChildren } from 'preact';

export function EmptyState({
  title,
  command,
  children,
}: {
  title: string;
  command?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="empty-state" data-testid="empty-state">
      <p class="empty-title">{title}</p>
      <p class="muted">{children}</p>
      {command && (
        // Focusable: a long command scrolls sideways on a phone, and a keyboard must reach it (axe-core's
        // scrollable-region-focusable).
        <pre tabIndex={0} aria-label="Command">
          <code>{command}</code>
        </pre>
      )}
    </div>
  );
}
