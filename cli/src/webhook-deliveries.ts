// A webhook's deliveries as a table: the log (`kino webhooks deliveries`) and the one attempt
// `kino webhooks redeliver` and `kino webhooks test` answer.
import type { WebhookDelivery } from '@kino/sdk';
import { formatDate, printTable } from './output.ts';

export async function printDeliveries(deliveries: WebhookDelivery[], empty?: string): Promise<void> {
  await printTable(
    deliveries.map((d) => ({
      id: d.id,
      event: d.event,
      attempt: String(d.attempt),
      status: d.responseStatus === null ? '-' : String(d.responseStatus),
      duration: `${d.durationMs} ms`,
      time: formatDate(d.createdAt),
      error: d.error ?? '',
    })),
    [
      { key: 'id', name: 'ID' },
      { key: 'event', name: 'Event' },
      { key: 'attempt', name: 'Attempt' },
      { key: 'status', name: 'Status' },
      { key: 'duration', name: 'Duration' },
      { key: 'time', name: 'Time' },
      { key: 'error', name: 'Error' },
    ],
    empty,
  );
}
