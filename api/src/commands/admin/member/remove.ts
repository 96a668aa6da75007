import { Flags } from '@oclif/core';
import { AdminCommand } from '../../../admin/admin-command.ts';

export default class AdminMemberRemove extends AdminCommand {
  static override description =
    'Remove a member from an organization. Membership is checked on every request: their dashboard sessions lose the organization at once.';
  static override flags = {
    org: Flags.string({ description: 'Organization id.', required: true }),
    email: Flags.string({ description: "The member's e-mail address.", required: true }),
  };

  async run(): Promise<{ orgId: string; email: string; removed: boolean }> {
    const { normalizeEmail, openAdminDatabase, removeOrganizationMember } = await import('@kino/database/admin');
    const { flags } = await this.parse(AdminMemberRemove);
    const db = await openAdminDatabase();
    try {
      const removed = await removeOrganizationMember(db, flags.org, flags.email);
      if (!removed) this.error(`${flags.email} is not a member of ${flags.org}.`, { exit: 1 });
      this.log(`${normalizeEmail(flags.email)} is no longer a member of ${flags.org}`);
      return { orgId: flags.org, email: normalizeEmail(flags.email), removed };
    } finally {
      await db.destroy();
    }
  }
}
