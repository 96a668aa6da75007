// Organization members: who may reach an organization through the dashboard, by e-mail address.
import type { Db } from '../database.ts';
import type { OrganizationMember } from '../schema.ts';

/** E-mail addresses compare case-insensitively (providers differ in what case they return). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Adds a member; adding one twice is not an error (the first record stays). */
export async function addOrganizationMember(db: Db, orgId: string, email: string): Promise<OrganizationMember> {
  const org = await db.selectFrom('organizations').select('id').where('id', '=', orgId).executeTakeFirst();
  if (!org) throw new Error(`organization ${orgId} does not exist`);
  await db
    .insertInto('organization_members')
    .values({ org_id: orgId, email: normalizeEmail(email) })
    .onConflict((oc) => oc.columns(['org_id', 'email']).doNothing())
    .execute();
  return db
    .selectFrom('organization_members')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('email', '=', normalizeEmail(email))
    .executeTakeFirstOrThrow();
}

/** Removes a member; true when there was one. */
export async function removeOrganizationMember(db: Db, orgId: string, email: string): Promise<boolean> {
  const result = await db
    .deleteFrom('organization_members')
    .where('org_id', '=', orgId)
    .where('email', '=', normalizeEmail(email))
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function listOrganizationMembers(db: Db, orgId: string): Promise<OrganizationMember[]> {
  return db
    .selectFrom('organization_members')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at')
    .orderBy('email')
    .execute();
}

/** The ids of the organizations an address is a member of. */
export async function organizationIdsOfMember(db: Db, email: string): Promise<string[]> {
  const rows = await db
    .selectFrom('organization_members')
    .select('org_id')
    .where('email', '=', normalizeEmail(email))
    .execute();
  return rows.map((row) => row.org_id);
}
