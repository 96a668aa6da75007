// Tabs as the WAI-ARIA Authoring Practices describe them (a tablist of tabs, each controlling one
// tabpanel; the arrows, Home and End move between tabs and choose them at once; Tab goes into the
// chosen panel), with the chosen tab kept in the page's URL (`?tab=`), so a reload or a pasted link
// opens the same one. A panel is made when its tab is first chosen (what it reads is asked for only
// then) and stays, hidden, after: a half-filled form survives a look at another tab, and nothing loads
// again on a switch.
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { chosenTab, urlWithTab } from './tab-url.ts';

export interface Tab {
  /** In the URL and the element ids: short, lowercase. */
  id: string;
  label: string;
  content: ComponentChildren;
}

export function Tabs({ label, tabs, testId }: { label: string; tabs: readonly Tab[]; testId?: string }) {
  const { url, route } = useLocation();
  const selected = chosenTab(tabs, url.split('?')[1] ?? '');
  const buttons = useRef<Record<string, HTMLButtonElement | null>>({});
  const [visited, setVisited] = useState<ReadonlySet<string>>(() => new Set([selected]));
  if (!visited.has(selected)) setVisited(new Set([...visited, selected]));
  const choose = (id: string, focus = false) => {
    route(urlWithTab(url, id, tabs[0]!.id), true);
    if (focus) buttons.current[id]?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const index = tabs.findIndex((tab) => tab.id === selected);
    const next: Record<string, number> = {
      ArrowRight: (index + 1) % tabs.length,
      ArrowLeft: (index - 1 + tabs.length) % tabs.length,
      Home: 0,
      End: tabs.length - 1,
    };
    const to = next[event.key];
    if (to === undefined) return;
    event.preventDefault();
    choose(tabs[to]!.id, true);
  };

  return (
    <div class="tabs" data-testid={testId}>
      <div role="tablist" aria-label={label} class="tablist" onKeyDown={onKeyDown}>
        {tabs.map((tab) => (
          <button
            key={tab.id}
            type="button"
            role="tab"
            id={`tab-${tab.id}`}
            aria-selected={tab.id === selected}
            aria-controls={`panel-${tab.id}`}
            tabIndex={tab.id === selected ? 0 : -1}
            data-testid={`tab-${tab.id}`}
            ref={(element) => {
              buttons.current[tab.id] = element;
            }}
            onClick={() => choose(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {tabs.map((tab) => (
        <div
          key={tab.id}
          role="tabpanel"
          id={`panel-${tab.id}`}
          aria-labelledby={`tab-${tab.id}`}
          class="tabpanel"
          tabIndex={0}
          hidden={tab.id !== selected}
          data-testid={`panel-${tab.id}`}
        >
          {visited.has(tab.id) && tab.content}
        </div>
      ))}
    </div>
  );
}
