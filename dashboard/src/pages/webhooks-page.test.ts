import { test } from 'vitest';
import assert from 'node:assert/strict';
import { webhooksPage, webhooksPageSize, type Webhook } from './webhooks-page.ts';

/** `count` webhooks made a minute apart, the first oldest. */
function made(count: number): Webhook[] {
  return Array.from({ length: count }, (_, k) => ({
    id: `wh_${String(k).padStart(3, '0')}`,
    url: `https://example.com/${k}`,
    events: ['video.processing.completed'],
    createdAt: new Date(Date.UTC(2026, 10, 1, 0, k)).toISOString(),
  }));
}

test('the webhooks list shows the newest first, 20 a page, every webhook on exactly one page', () => {
  const webhooks = made(45);
  const first = webhooksPage(webhooks, 1);
  assert.equal(first.pages, 3);
  assert.equal(first.rows.length, webhooksPageSize);
  assert.equal(first.rows[0]!.id, 'wh_044', 'the newest on top');
  const shown = [1, 2, 3].flatMap((page) => webhooksPage(webhooks, page).rows.map((w) => w.id));
  assert.deepEqual(
    shown,
    [...webhooks].reverse().map((w) => w.id),
  );
  assert.equal(webhooksPage(webhooks, 3).rows.length, 5);
});

test('a page past the last shows the last (a webhook removed from a last page of one), and none is one page', () => {
  assert.deepEqual(
    webhooksPage(made(21), 2).rows.map((w) => w.id),
    ['wh_000'],
  );
  assert.deepEqual(webhooksPage(made(20), 2).rows.length, 20);
  assert.deepEqual(webhooksPage([], 1), { rows: [], pages: 1 });
});
