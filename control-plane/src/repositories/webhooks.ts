import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { newId } from '@kino/infra';
import type { WebhookEvent } from '@kino/proto/contract';
import type { Db } from '../db/database.ts';
import type { Webhook } from '../db/schema.ts';

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. Kept in clear: signing needs it. */
export function generateWebhookSecret(): string {
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

/** The live webhooks of an environment subscribed to an event: whom a delivery goes to. */
export async function listWebhooksForEvent(db: Db, envId: string, event: WebhookEvent): Promise<Webhook[]> {
  const webhooks = await db
    .selectFrom('webhooks')
    .selectAll()
    .where('env_id', '=', envId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .execute();
  return webhooks.filter((webhook) => webhook.events.includes(event));
}
