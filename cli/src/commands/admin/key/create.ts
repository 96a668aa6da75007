import { Flags } from '@oclif/core';
import { KinoCommand } from '../../../base-command.ts';

export interface CreatedKey {
  /** The key in clear: printed this once, stored nowhere. */
  apiKey: string;
  id: string;
  type: 'environment' | 'full' | 'system';
  orgId: string;
  envId: string | null;
  live: boolean;
  prefix: string;
  createdAt: string;
}

export default class AdminKeyCreate extends KinoCommand {
  static override description =
    'Create an API key. It is printed once and stored only as a hash: keep it now.\n' +
    'Types: environment (one environment, needs --env), full (every environment of the organization), ' +
    'system (any organization; for internal services only).';
  static override examples = [
    '<%= config.bin %> admin key create --org org_... --env env_... --type environment --json',
    '<%= config.bin %> admin key create --org org_... --type full --live',
  ];
  static override flags = {
    org: Flags.string({ description: 'Organization id (for system keys: the operator organization that owns it).', required: true }),
    env: Flags.string({ description: 'Environment id: required for (and only for) --type environment.' }),
    type: Flags.string({ description: 'Key type.', options: ['environment', 'full', 'system'], required: true }),
    live: Flags.boolean({ description: 'A production key (svc_live_) instead of a test key (svc_test_).', default: false }),
  };

  async run(): Promise<CreatedKey> {
    const { createApiKey, openAdminDatabase } = await import('@kino/control-plane/admin');
    const { flags } = await this.parse(AdminKeyCreate);
    const type = flags.type as CreatedKey['type'];
    if (type === 'environment' && !flags.env) this.error('--type environment needs --env ENV_ID.', { exit: 1 });
    if (type !== 'environment' && flags.env) this.error(`A ${type} key is not bound to an environment: drop --env.`, { exit: 1 });
    const db = await openAdminDatabase();
    try {
      let created: Awaited<ReturnType<typeof createApiKey>>;
      try {
        created = await createApiKey(db, { orgId: flags.org, envId: flags.env, type, live: flags.live });
      } catch (error) {
        this.error((error as Error).message, { exit: 1 });
      }
      const { apiKey, record } = created;
      this.log(apiKey);
      this.note(`Created ${type} key ${record.id}. This is the only time the key is shown: store it now.`);
      return {
        apiKey,
        id: record.id,
        type: record.type,
        orgId: record.org_id,
        envId: record.env_id,
        live: record.live,
        prefix: record.key_prefix,
        createdAt: record.created_at.toISOString(),
      };
    } finally {
      await db.destroy();
    }
  }
}
