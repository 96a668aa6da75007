// The chosen tab in a page's URL (`?tab=`): read and written here, for components/tabs.tsx.

/** The tab the URL names, else the first. */
export function chosenTab(tabs: readonly { id: string }[], search: string): string {
  const asked = new URLSearchParams(search).get('tab');
  return tabs.some((tab) => tab.id === asked) ? asked! : tabs[0]!.id;
}

/** The URL with `tab` set to `id` (the first tab is the default and leaves the URL without it). */
export function urlWithTab(url: string, id: string, firstId: string): string {
  const [path, search = ''] = url.split('?', 2) as [string, string | undefined];
  const params = new URLSearchParams(search);
  if (id === firstId) params.delete('tab');
  else params.set('tab', id);
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}
