import { AdminCommand } from '../../../admin/admin-command.ts';

export default class AdminOrgList extends AdminCommand {
  static override description = 'List organizations.';

  async run(): Promise<{ id: string; name: string; createdAt: string }[]> {
    const { listOrganizations, openAdminDatabase } = await import('@kino/database/admin');
    const db = await openAdminDatabase();
    try {
      const orgs = (await listOrganizations(db)).map((o) => ({
        id: o.id,
        name: o.name,
        createdAt: o.created_at.toISOString(),
      }));
      for (const org of orgs) this.log(`${org.id}  ${org.name}  ${org.createdAt}`);
      return orgs;
    } finally {
      await db.destroy();
    }
  }
}
