import { Flags } from '@oclif/core';
import { AdminCommand } from '../../../admin/admin-command.ts';

export interface CreatedOperatorToken {
  /** The token in clear: printed this once, stored nowhere (only its hash). */
  token: string;
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
}

export default class AdminOperatorTokenCreate extends AdminCommand {
  static override description =
    "Create an operator token for the operators' interface (`kino nodes`, KINO_OPERATOR_TOKEN). " +
    'It is printed once and stored only as a hash: keep it now.';
  static override examples = ['<%= config.bin %> admin operator-token create --name "on-call laptop" --json'];
  static override flags = {
    name: Flags.string({ description: 'What the token is for, to tell tokens apart in a list.', required: true }),
  };

  async run(): Promise<CreatedOperatorToken> {
    const { createOperatorToken, openAdminDatabase } = await import('@kino/database/admin');
    const { flags } = await this.parse(AdminOperatorTokenCreate);
    const db = await openAdminDatabase();
    try {
      const { token, record } = await createOperatorToken(db, { name: flags.name });
      this.log(token);
      this.note(
        `Created operator token ${record.id} (${record.token_prefix}…). This is the only time the token is shown: store it now.`,
      );
      return {
        token,
        id: record.id,
        name: record.name,
        prefix: record.token_prefix,
        createdAt: record.created_at.toISOString(),
      };
    } finally {
      await db.destroy();
    }
  }
}
