import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { newId } from '@kino/infra';
import type { WebhookEvent } from '@kino/proto/contract';
import type { Db } from '../database.ts';
import type { Webhook } from '../schema.ts';

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
export async function listWebhookSubscribers(db: Db, { videoId, event }: { videoId: string; event: WebhookEvent }): Promise<Webhook[]> {
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
