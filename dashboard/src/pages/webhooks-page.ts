// The webhooks list as the page shows it: newest first, 20 a page (issue 59, item 4).
import type { WebhookEvent } from '@kino/proto/contract';

/** A webhook as the API lists it (its secret is shown once, when it is made). */
export interface Webhook {
  id: string;
  url: string;
  events: WebhookEvent[];
  createdAt: string;
}

/**
 * The API lists webhooks oldest first; the page shows the newest first, so the one just added is at
 * the top, beside its signing secret, not at the bottom of a long list.
 */
export function newestFirst(webhooks: readonly Webhook[]): Webhook[] {
  return [...webhooks].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}

/** Rows a page of the webhooks list shows. */
export const webhooksPageSize = 20;

/**
 * Page `page` (from 1) of `webhooks`, newest first, and how many pages there are. The API answers
 * every webhook of the environment at once (a few dozen at most); the page shows them 20 at a time.
 */
export function webhooksPage(webhooks: readonly Webhook[], page: number): { rows: Webhook[]; pages: number } {
  const pages = Math.max(1, Math.ceil(webhooks.length / webhooksPageSize));
  const shown = Math.min(Math.max(1, page), pages);
  return { rows: newestFirst(webhooks).slice((shown - 1) * webhooksPageSize, shown * webhooksPageSize), pages };
}
