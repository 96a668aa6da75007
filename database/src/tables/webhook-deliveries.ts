import type { ColumnType, Generated, Selectable } from 'kysely';

/** One attempt to deliver one webhook message (migration 20261127T0100). */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  /** Standard Webhooks `webhook-id`: the same on every attempt of the message. */
  message_id: string;
  event: string;
  /** The JSON body as sent. */
  payload: ColumnType<Record<string, unknown>, string, string>;
  /** 1 for the first attempt of the message to this webhook, counting retries and redeliveries. */
  attempt: number;
  /** The endpoint's answer; null when none came (unreachable, refused destination, timeout). */
  response_status: number | null;
  duration_ms: number;
  /** Why the attempt failed; null when the endpoint answered 2xx. */
  error: string | null;
  created_at: Generated<Date>;
}
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
