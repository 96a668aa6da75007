import { Flags } from '@oclif/core';
import { AdminCommand } from '../../../admin/admin-command.ts';

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
  /** Null: the key works until revoked. */
  expiresAt: string | null;
}

const durationUnits = { m: 60, h: 60 * 60, d: 24 * 60 * 60 } as const;

/** `90m`, `12h`, `30d` in seconds: how long a key lives (up to ten years). */
const expiresInFlag = Flags.custom<number>({
  description:
    'The key stops working this long after now: a number and a unit, m (minutes), h (hours) or d (days), e.g. 30d.',
  helpValue: '30d',
  parse: async (input) => {
    const match = /^(\d{1,6})([mhd])$/.exec(input.trim());
    const seconds = match ? Number(match[1]) * durationUnits[match[2] as keyof typeof durationUnits] : 0;
    if (seconds <= 0 || seconds > 3650 * durationUnits.d) {
      throw new Error(
        `--expires-in ${input}: expected a positive number followed by m, h or d (at most 3650d), e.g. 30d`,
      );
    }
    return seconds;
  },
});

export default class AdminKeyCreate extends AdminCommand {
  static override description =
    'Create an API key. It is printed once and stored only as a hash: keep it now.\n' +
    'Types: environment (one environment, needs --env), full (every environment of the organization), ' +
    'system (any organization; for internal services only).';
  static override examples = [
    '<%= config.bin %> admin key create --org org_... --env env_... --type environment --json',
    '<%= config.bin %> admin key create --org org_... --type full --live',
    '<%= config.bin %> admin key create --org org_... --type full --expires-in 30d',
  ];
  static override flags = {
    org: Flags.string({
      description: 'Organization id (for system keys: the operator organization that owns it).',
      required: true,
    }),
    env: Flags.string({ description: 'Environment id: required for (and only for) --type environment.' }),
    type: Flags.string({ description: 'Key type.', options: ['environment', 'full', 'system'], required: true }),
    live: Flags.boolean({
      description: 'A production key (svc_live_) instead of a test key (svc_test_).',
      default: false,
    }),
    'expires-in': expiresInFlag(),
  };

  async run(): Promise<CreatedKey> {
    const { createApiKey, openAdminDatabase } = await import('@kino/database/admin');
    const { flags } = await this.parse(AdminKeyCreate);
    const type = flags.type as CreatedKey['type'];
    if (type === 'environment' && !flags.env) this.error('--type environment needs --env ENV_ID.', { exit: 1 });
    if (type !== 'environment' && flags.env)
      this.error(`A ${type} key is not bound to an environment: drop --env.`, { exit: 1 });
    const db = await openAdminDatabase();
    try {
      let created: Awaited<ReturnType<typeof createApiKey>>;
      try {
        created = await createApiKey(db, {
          orgId: flags.org,
          envId: flags.env,
          type,
          live: flags.live,
          expiresInSeconds: flags['expires-in'],
        });
      } catch (error) {
        this.error((error as Error).message, { exit: 1 });
      }
      const { apiKey, record } = created;
      this.log(apiKey);
      const expiry = record.expires_at ? ` It expires at ${record.expires_at.toISOString()}.` : '';
      this.note(`Created ${type} key ${record.id}.${expiry} This is the only time the key is shown: store it now.`);
      return {
        apiKey,
        id: record.id,
        type: record.type,
        orgId: record.org_id,
        envId: record.env_id,
        live: record.live,
        prefix: record.key_prefix,
        createdAt: record.created_at.toISOString(),
        expiresAt: record.expires_at?.toISOString() ?? null,
      };
    } finally {
      await db.destroy();
    }
  }
}
