// The delivery log of webhooks (docs/decisions/api.md#webhooks): one row per attempt to POST one
// message to one endpoint. `message_id` is the Standard Webhooks `webhook-id`, the same on every
// retry and redelivery of the message; `payload` is the body as sent, so a redelivery sends it again
// unchanged. The log keeps the latest attempts per webhook (webhookDeliveryLogSize): writing one
// prunes the oldest. Removing a webhook (a soft delete) keeps its log.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    // json, not jsonb: the text as sent, its keys in order, so a redelivery sends the same bytes.
    .addColumn('payload', 'json', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_webhook_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at desc', 'id desc'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_message_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'message_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').ifExists().execute();
}
