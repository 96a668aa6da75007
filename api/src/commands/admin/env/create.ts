import { Flags } from '@oclif/core';
import { AdminCommand } from '../../../admin/admin-command.ts';

export default class AdminEnvCreate extends AdminCommand {
  static override description = 'Create an environment in an organization.';
  static override examples = ['<%= config.bin %> admin env create --org org_... --name production --json'];
  static override flags = {
    org: Flags.string({ description: 'Organization id.', required: true }),
    name: Flags.string({ description: 'Display name of the environment.', required: true }),
  };

  async run(): Promise<{ id: string; name: string; orgId: string; createdAt: string }> {
    const { createEnvironment, getOrganization, openAdminDatabase } = await import('@kino/database/admin');
    const { flags } = await this.parse(AdminEnvCreate);
    const db = await openAdminDatabase();
    try {
      if (!(await getOrganization(db, flags.org))) this.error(`Organization ${flags.org} does not exist.`, { exit: 1 });
      const env = await createEnvironment(db, { orgId: flags.org, name: flags.name });
      const result = { id: env.id, name: env.name, orgId: env.org_id, createdAt: env.created_at.toISOString() };
      this.log(`Created environment ${result.id} (${result.name}) in ${result.orgId}`);
      return result;
    } finally {
      await db.destroy();
    }
  }
}
