import { Flags } from '@oclif/core';
import { AdminCommand } from '../../../admin/admin-command.ts';

export default class AdminOrgCreate extends AdminCommand {
  static override description = 'Create an organization (DATABASE_URL, or the dev stack database of .kino/dev.json).';
  static override examples = ['<%= config.bin %> admin org create --name "Acme" --json'];
  static override flags = {
    name: Flags.string({ description: 'Display name of the organization.', required: true }),
  };

  async run(): Promise<{ id: string; name: string; createdAt: string }> {
    const { createOrganization, openAdminDatabase } = await import('@kino/database/admin');
    const { flags } = await this.parse(AdminOrgCreate);
    const db = await openAdminDatabase();
    try {
      const org = await createOrganization(db, { name: flags.name });
      const result = { id: org.id, name: org.name, createdAt: org.created_at.toISOString() };
      this.log(`Created organization ${result.id} (${result.name})`);
      return result;
    } finally {
      await db.destroy();
    }
  }
}
