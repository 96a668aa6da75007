import type { Db } from '../database.ts';
import type { Image, ImagesTable } from '../schema.ts';
import type { Insertable } from 'kysely';

export async function createImage(db: Db, image: Insertable<ImagesTable>): Promise<Image> {
  return db.insertInto('images').values(image).returningAll().executeTakeFirstOrThrow();
}

/** The image of this organization and environment with that id; undefined when it has none. */
export async function findImage(
  db: Db,
  { orgId, envId, id }: { orgId: string; envId: string; id: string },
): Promise<Image | undefined> {
  return db
    .selectFrom('images')
    .selectAll()
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .where('env_id', '=', envId)
    .executeTakeFirst();
}
