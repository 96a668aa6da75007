import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { newId } from '@kino/infra';
import { webhookDeliveryLogSize, type WebhookEvent, type WebhookPayload } from '@kino/proto/contract';
import type { Db } from '../database.ts';
import type { Webhook, WebhookDelivery } from '../schema.ts';

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. Kept in clear: signing needs it. */
function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export async function createWebhook(
  db: Db,
  { orgId, envId, url, events }: { orgId: string; envId: string; url: string; events: readonly WebhookEvent[] },
): Promise<Webhook> {
  return db
    .insertInto('webhooks')
    .values({
      id: newId('whk'),
      org_id: orgId,
      env_id: envId,
      url,
      events: JSON.stringify(events),
      secret: generateWebhookSecret(),
      deleted_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listWebhooks(db: Db, { orgId, envId }: { orgId: string; envId: string }): Promise<Webhook[]> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('env_id', '=', envId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Removes a webhook; undefined when there is no live webhook with that id in the environment. */
export async function deleteWebhook(
  db: Db,
  { orgId, envId, id }: { orgId: string; envId: string; id: string },
): Promise<Webhook | undefined> {
  return db
    .updateTable('webhooks')
    .set({ deleted_at: sql`now()` })
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .where('env_id', '=', envId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** A live webhook by id; undefined once deleted (a deleted endpoint gets nothing more). */
export async function findLiveWebhook(db: Db, id: string): Promise<Webhook | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

/**
 * The live webhooks of a video's environment that want `event`, oldest first: whom a delivery goes
 * to. An empty `events` list means every event, as omitting `events` does at registration (the API
 * stores the full list then, and refuses `[]`): a row can only hold `[]` when written some other
 * way, and its owner asked for no filter, not for silence.
 */
export async function listWebhookSubscribers(
  db: Db,
  { videoId, event }: { videoId: string; event: WebhookEvent },
): Promise<Webhook[]> {
  const webhooks = await db
    .selectFrom('webhooks as w')
    .innerJoin('videos as v', (join) => join.onRef('v.env_id', '=', 'w.env_id').onRef('v.org_id', '=', 'w.org_id'))
    .selectAll('w')
    .where('v.id', '=', videoId)
    .where('w.deleted_at', 'is', null)
    .orderBy('w.created_at')
    .orderBy('w.id')
    .execute();
  return webhooks.filter((webhook) => webhook.events.length === 0 || webhook.events.includes(event));
}

/** A live webhook of the environment; undefined when missing, another environment's or removed. */
export async function findLiveWebhookInEnvironment(
  db: Db,
  { orgId, envId, id }: { orgId: string; envId: string; id: string },
): Promise<Webhook | undefined> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .where('env_id', '=', envId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Records one attempt to deliver `messageId` to a webhook. `attempt` counts this message's attempts
 * to this webhook, retries and redeliveries alike. The log then drops the webhook's attempts beyond
 * the latest webhookDeliveryLogSize.
 */
export async function recordWebhookDelivery(
  db: Db,
  delivery: {
    webhookId: string;
    messageId: string;
    payload: WebhookPayload;
    responseStatus: number | null;
    durationMs: number;
    error: string | null;
  },
): Promise<WebhookDelivery> {
  return db.transaction().execute(async (trx) => {
    // Attempts of one message to one webhook are sequential (a retry waits for the last to end), so
    // counting is enough; a redelivery racing a retry may share a number, and the log shows both.
    const { count } = await trx
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('webhook_id', '=', delivery.webhookId)
      .where('message_id', '=', delivery.messageId)
      .executeTakeFirstOrThrow();
    const row = await trx
      .insertInto('webhook_deliveries')
      .values({
        id: newId('whd'),
        webhook_id: delivery.webhookId,
        message_id: delivery.messageId,
        event: delivery.payload.event,
        payload: JSON.stringify(delivery.payload),
        attempt: Number(count) + 1,
        response_status: delivery.responseStatus,
        duration_ms: Math.round(delivery.durationMs),
        error: delivery.error,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .deleteFrom('webhook_deliveries')
      .where('webhook_id', '=', delivery.webhookId)
      .where(
        'id',
        'not in',
        trx
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('webhook_id', '=', delivery.webhookId)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(webhookDeliveryLogSize),
      )
      .execute();
    return row;
  });
}

/** The latest deliveries of a webhook, newest first. */
export async function listWebhookDeliveries(
  db: Db,
  webhookId: string,
  limit = webhookDeliveryLogSize,
): Promise<WebhookDelivery[]> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function findWebhookDelivery(
  db: Db,
  { webhookId, id }: { webhookId: string; id: string },
): Promise<WebhookDelivery | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .executeTakeFirst();
}
