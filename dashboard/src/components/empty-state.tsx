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
        <pre>
          <code>{command}</code>
        </pre>
      )}
    </div>
  );
}
