import { Flags } from '@oclif/core';
import { AdminCommand } from '../../../admin/admin-command.ts';
import type { Member } from './add.ts';

export default class AdminMemberList extends AdminCommand {
  static override description = 'List the members of an organization (e-mail addresses).';
  static override flags = {
    org: Flags.string({ description: 'Organization id.', required: true }),
  };

  async run(): Promise<Member[]> {
    const { listOrganizationMembers, openAdminDatabase } = await import('@kino/database/admin');
    const { flags } = await this.parse(AdminMemberList);
    const db = await openAdminDatabase();
    try {
      const members = (await listOrganizationMembers(db, flags.org)).map((m) => ({
        orgId: m.org_id,
        email: m.email,
        createdAt: m.created_at.toISOString(),
      }));
      for (const m of members) this.log(`${m.email}  added ${m.createdAt}`);
      return members;
    } finally {
      await db.destroy();
    }
  }
}
