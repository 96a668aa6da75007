import { Flags } from '@oclif/core';
import { ApiCommand, UsageError } from '../api-command.ts';

export interface LoginResult {
  profile: string;
  path: string;
  apiUrl: string;
  orgId: string;
  envId: string;
  default: boolean;
}

export default class Login extends ApiCommand {
  static override description = [
    'Store a profile: API URL, API key, organization and environment (asked for when not given and a terminal is attached).',
    "The key is checked by listing the organization's environments. Profiles live in $XDG_CONFIG_HOME/kino/config.json",
    '(~/.config/kino/config.json), mode 600. The first profile, or one stored with --default, is the default.',
  ].join('\n');

  static override examples = [
    '<%= config.bin %> login --api-url https://kino.example.com/v1/api --api-key $KINO_API_KEY --org org_123 --env env_456',
    '<%= config.bin %> login --profile staging --default',
  ];

  static override flags = {
    default: Flags.boolean({ description: 'make this profile the default one' }),
    'operator-token': Flags.string({ description: 'operator token, for `kino nodes` (env KINO_OPERATOR_TOKEN)' }),
  };

  async run(): Promise<LoginResult> {
    const { readConfigFile, writeConfigFile, configPath } = await import('../profiles.ts');
    const { flags } = await this.parse(Login);
    const name = flags.profile ?? 'default';
    const path = configPath();
    const config = readConfigFile(path);
    const existing = config.profiles[name] ?? {};
    // Only what is given here or already in this profile: a login never copies dev.json's key.
    const apiUrl = flags['api-url'] ?? (await this.ask('API URL (…/v1/api)', existing.apiUrl));
    const apiKey = flags['api-key'] ?? (await this.ask('API key', existing.apiKey, true));
    const orgId = flags.org ?? (await this.ask('Organization id', existing.orgId));
    if (!apiUrl || !apiKey || !orgId)
      throw new UsageError('login needs --api-url, --api-key and --org (or a terminal to ask on)');

    const { Kino } = await import('@kino/sdk');
    const kino = new Kino({ apiUrl, apiKey });
    const environments = await kino.environments.list(orgId);
    let envId = flags.env ?? existing.envId;
    if (!envId && environments.length === 1) envId = environments[0]!.id;
    if (!envId)
      envId = await this.ask(`Environment id (${environments.map((e) => `${e.id} ${e.name}`).join(', ')})`, undefined);
    if (!envId)
      throw new UsageError(`login needs --env: one of ${environments.map((e) => `${e.id} (${e.name})`).join(', ')}`);
    if (!environments.some((e) => e.id === envId)) {
      throw new UsageError(
        `environment ${envId} is not one this key sees in ${orgId}: ${environments.map((e) => e.id).join(', ') || 'none'}`,
      );
    }

    const operatorToken = flags['operator-token'] ?? existing.operatorToken;
    config.profiles[name] = { apiUrl, apiKey, orgId, envId, ...(operatorToken ? { operatorToken } : {}) };
    const isDefault =
      flags.default ||
      !config.defaultProfile ||
      !config.profiles[config.defaultProfile] ||
      config.defaultProfile === name;
    if (isDefault) config.defaultProfile = name;
    writeConfigFile(config, path);
    this.note(`Logged in: profile ${name}${isDefault ? ' (default)' : ''} in ${path}`);
    return { profile: name, path, apiUrl, orgId, envId, default: isDefault };
  }

  /** Asks on the terminal; undefined without one (scripts pass flags). */
  private async ask(question: string, current: string | undefined, secret = false): Promise<string | undefined> {
    if (!process.stdin.isTTY || !process.stderr.isTTY) return current;
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    try {
      const shown = current ? (secret ? ` [${current.slice(0, 12)}…]` : ` [${current}]`) : '';
      const answer = (await rl.question(`${question}${shown}: `)).trim();
      return answer || current;
    } finally {
      rl.close();
    }
  }
}
