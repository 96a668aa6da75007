import { AdminCommand } from '../../../admin/admin-command.ts';

export interface ListedOperatorToken {
  id: string;
  name: string;
  /** The first characters only: tokens are stored as hashes and never shown again. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export default class AdminOperatorTokenList extends AdminCommand {
  static override description =
    'List the operator tokens (prefixes only: tokens are never shown again). OPERATOR_TOKEN, a setting of the API, is not listed.';

  async run(): Promise<ListedOperatorToken[]> {
    const { listOperatorTokens, openAdminDatabase } = await import('@kino/database/admin');
    await this.parse(AdminOperatorTokenList);
    const db = await openAdminDatabase();
    try {
      const tokens = (await listOperatorTokens(db)).map((t) => ({
        id: t.id,
        name: t.name,
        prefix: t.token_prefix,
        createdAt: t.created_at.toISOString(),
        revokedAt: t.revoked_at?.toISOString() ?? null,
        lastUsedAt: t.last_used_at?.toISOString() ?? null,
      }));
      for (const t of tokens) {
        this.log(
          `${t.id}  ${t.prefix}…  ${t.revokedAt ? `revoked ${t.revokedAt}` : 'active'}  created ${t.createdAt}  ${t.name}`,
        );
      }
      return tokens;
    } finally {
      await db.destroy();
    }
  }
}
