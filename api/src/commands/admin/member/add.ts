import { Flags } from '@oclif/core';
import { AdminCommand } from '../../../admin/admin-command.ts';

export interface Member {
  orgId: string;
  email: string;
  createdAt: string;
}

export default class AdminMemberAdd extends AdminCommand {
  static override description =
    'Make an e-mail address a member of an organization: signed in to the dashboard with that (verified) address, ' +
    'a user reaches the organization. Adding a member twice changes nothing.';
  static override examples = ['<%= config.bin %> admin member add --org org_... --email ada@example.com'];
  static override flags = {
    org: Flags.string({ description: 'Organization id.', required: true }),
    email: Flags.string({
      description: "The member's e-mail address, as the identity provider reports it.",
      required: true,
    }),
  };

  async run(): Promise<Member> {
    const { addOrganizationMember, openAdminDatabase } = await import('@kino/database/admin');
    const { flags } = await this.parse(AdminMemberAdd);
    const db = await openAdminDatabase();
    try {
      let member: Awaited<ReturnType<typeof addOrganizationMember>>;
      try {
        member = await addOrganizationMember(db, flags.org, flags.email);
      } catch (error) {
        this.error((error as Error).message, { exit: 1 });
      }
      this.log(`${member.email} is a member of ${member.org_id}`);
      return { orgId: member.org_id, email: member.email, createdAt: member.created_at.toISOString() };
    } finally {
      await db.destroy();
    }
  }
}
