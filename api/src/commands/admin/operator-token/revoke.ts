import { Args } from '@oclif/core';
import { AdminCommand } from '../../../admin/admin-command.ts';

export default class AdminOperatorTokenRevoke extends AdminCommand {
  static override description =
    "Revoke an operator token: the operators' interface answers 401 to it from now on. Revoking twice is harmless.";
  static override args = {
    token: Args.string({
      description:
        'The token id (opt_...) or its prefix (kino_op_...), as `kino admin operator-token list` shows them.',
      required: true,
    }),
  };

  async run(): Promise<{ id: string; revokedAt: string; alreadyRevoked: boolean }> {
    const { findOperatorTokens, openAdminDatabase, revokeOperatorToken } = await import('@kino/database/admin');
    const { args } = await this.parse(AdminOperatorTokenRevoke);
    const db = await openAdminDatabase();
    try {
      const matches = await findOperatorTokens(db, args.token);
      if (matches.length === 0) this.error(`Operator token ${args.token} does not exist.`, { exit: 1 });
      if (matches.length > 1)
        this.error(
          `${matches.length} operator tokens have the prefix ${args.token}: name one by its id (${matches.map((t) => t.id).join(', ')}).`,
          { exit: 1 },
        );
      const before = matches[0]!;
      const after = await revokeOperatorToken(db, before.id);
      const result = {
        id: before.id,
        revokedAt: after!.revoked_at!.toISOString(),
        alreadyRevoked: before.revoked_at !== null,
      };
      this.log(
        result.alreadyRevoked
          ? `Operator token ${result.id} was already revoked (${result.revokedAt}).`
          : `Revoked operator token ${result.id}.`,
      );
      return result;
    } finally {
      await db.destroy();
    }
  }
}
