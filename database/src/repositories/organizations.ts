import { newId } from '@kino/infra';
import type { Db } from '../database.ts';
import type { Organization } from '../schema.ts';

export async function createOrganization(db: Db, { name }: { name: string }): Promise<Organization> {
  return db
    .insertInto('organizations')
    .values({ id: newId('org'), name })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function getOrganization(db: Db, id: string): Promise<Organization | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listOrganizations(db: Db): Promise<Organization[]> {
  return db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute();
}
