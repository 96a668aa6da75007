import { sql } from 'kysely';
import { newId } from '@kino/infra';
import type { Db } from '../database.ts';
import type { Watermark } from '@kino/proto/contract';
import type { Environment } from '../schema.ts';

export async function createEnvironment(
  db: Db,
  { orgId, name }: { orgId: string; name: string },
): Promise<Environment> {
  return db
    .insertInto('environments')
    .values({ id: newId('env'), org_id: orgId, name })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function getEnvironment(db: Db, id: string): Promise<Environment | undefined> {
  return db.selectFrom('environments').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listEnvironments(db: Db, orgId: string): Promise<Environment[]> {
  return db
    .selectFrom('environments')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Sets an environment's just-in-time choice (null: follow the farm's default). Undefined when the
 * organization has no such environment.
 */
export async function setEnvironmentJustInTime(
  db: Db,
  { orgId, id, justInTime }: { orgId: string; id: string; justInTime: boolean | null },
): Promise<Environment | undefined> {
  return db
    .updateTable('environments')
    .set({ just_in_time: justInTime })
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .returningAll()
    .executeTakeFirst();
}

export interface EnvironmentEncodeSettings {
  hardwareEncoding?: 'never' | 'allowed' | null;
  nodeLabels?: string[] | null;
  watermark?: Watermark | null;
}

/**
 * Sets an environment's encode settings, those given (null: back to none). Undefined when the
 * organization has no such environment.
 */
export async function setEnvironmentEncodeSettings(
  db: Db,
  { orgId, id, hardwareEncoding, nodeLabels, watermark }: { orgId: string; id: string } & EnvironmentEncodeSettings,
): Promise<Environment | undefined> {
  return db
    .updateTable('environments')
    .set({
      ...(hardwareEncoding !== undefined ? { hardware_encoding: hardwareEncoding } : {}),
      ...(nodeLabels !== undefined
        ? { node_labels: nodeLabels === null ? null : sql<string[]>`${sql.val(nodeLabels)}::text[]` }
        : {}),
      ...(watermark !== undefined ? { watermark: watermark === null ? null : JSON.stringify(watermark) } : {}),
    })
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .returningAll()
    .executeTakeFirst();
}

/** The just-in-time setting of a video's environment: null when it follows the farm's default. */
export async function environmentJustInTime(db: Db, videoId: string): Promise<boolean | null> {
  const row = await db
    .selectFrom('videos as v')
    .innerJoin('environments as e', 'e.id', 'v.env_id')
    .select('e.just_in_time')
    .where('v.id', '=', videoId)
    .executeTakeFirst();
  return row?.just_in_time ?? null;
}
