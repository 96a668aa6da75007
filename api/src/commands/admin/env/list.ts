import { Flags } from '@oclif/core';
import { AdminCommand } from '../../../admin/admin-command.ts';

export default class AdminEnvList extends AdminCommand {
  static override description = 'List the environments of an organization.';
  static override flags = {
    org: Flags.string({ description: 'Organization id.', required: true }),
  };

  async run(): Promise<{ id: string; name: string; orgId: string; justInTime: boolean | null; createdAt: string }[]> {
    const { listEnvironments, openAdminDatabase } = await import('@kino/database/admin');
    const { flags } = await this.parse(AdminEnvList);
    const db = await openAdminDatabase();
    try {
      const envs = (await listEnvironments(db, flags.org)).map((e) => ({
        id: e.id,
        name: e.name,
        orgId: e.org_id,
        // As the API answers it: null follows the farm's default (JUST_IN_TIME).
        justInTime: e.just_in_time,
        createdAt: e.created_at.toISOString(),
      }));
      const word = (setting: boolean | null) => (setting === null ? 'default' : setting ? 'on' : 'off');
      for (const env of envs)
        this.log(`${env.id}  ${env.name}  just-in-time ${word(env.justInTime)}  ${env.createdAt}`);
      return envs;
    } finally {
      await db.destroy();
    }
  }
}
