import { Args } from '@oclif/core';
import { AdminCommand } from '../../../admin/admin-command.ts';

export default class AdminKeyRevoke extends AdminCommand {
  static override description = 'Revoke an API key: requests with it get 401 from now on. Revoking twice is harmless.';
  static override args = {
    keyId: Args.string({ description: 'The key id (key_...), as `kino admin key list` shows it.', required: true }),
  };

  async run(): Promise<{ id: string; revokedAt: string; alreadyRevoked: boolean }> {
    const { getApiKey, openAdminDatabase, revokeApiKey } = await import('@kino/database/admin');
    const { args } = await this.parse(AdminKeyRevoke);
    const db = await openAdminDatabase();
    try {
      const before = await getApiKey(db, args.keyId);
      if (!before) this.error(`API key ${args.keyId} does not exist.`, { exit: 1 });
      const after = await revokeApiKey(db, args.keyId);
      const result = {
        id: args.keyId,
        revokedAt: after!.revoked_at!.toISOString(),
        alreadyRevoked: before.revoked_at !== null,
      };
      this.log(
        result.alreadyRevoked
          ? `Key ${result.id} was already revoked (${result.revokedAt}).`
          : `Revoked key ${result.id}.`,
      );
      return result;
    } finally {
      await db.destroy();
    }
  }
}
