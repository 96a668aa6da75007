import { Flags } from '@oclif/core';
import { AdminCommand } from '../../../admin/admin-command.ts';

export interface ListedKey {
  id: string;
  type: string;
  orgId: string;
  envId: string | null;
  live: boolean;
  /** The first characters only: keys are stored as hashes and never shown again. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  /** Null: the key never expires. */
  expiresAt: string | null;
  /** Whether the API accepts the key now: neither revoked nor expired. */
  active: boolean;
  lastUsedAt: string | null;
}

export default class AdminKeyList extends AdminCommand {
  static override description = 'List the API keys of an organization (prefixes only: keys are never shown again).';
  static override flags = {
    org: Flags.string({ description: 'Organization id.', required: true }),
  };

  async run(): Promise<ListedKey[]> {
    const { listApiKeys, openAdminDatabase } = await import('@kino/database/admin');
    const { flags } = await this.parse(AdminKeyList);
    const db = await openAdminDatabase();
    try {
      const now = Date.now();
      const keys = (await listApiKeys(db, flags.org)).map((k) => ({
        id: k.id,
        type: k.type,
        orgId: k.org_id,
        envId: k.env_id,
        live: k.live,
        prefix: k.key_prefix,
        createdAt: k.created_at.toISOString(),
        revokedAt: k.revoked_at?.toISOString() ?? null,
        expiresAt: k.expires_at?.toISOString() ?? null,
        active: !k.revoked_at && (!k.expires_at || k.expires_at.getTime() > now),
        lastUsedAt: k.last_used_at?.toISOString() ?? null,
      }));
      for (const k of keys) {
        const state = k.revokedAt
          ? `revoked ${k.revokedAt}`
          : k.expiresAt
            ? `${k.active ? 'active, expires' : 'expired'} ${k.expiresAt}`
            : 'active';
        this.log(`${k.id}  ${k.prefix}…  ${k.type}${k.envId ? ` (${k.envId})` : ''}  ${state}  created ${k.createdAt}`);
      }
      return keys;
    } finally {
      await db.destroy();
    }
  }
}
