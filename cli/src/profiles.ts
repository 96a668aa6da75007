// Where the developers' commands find the API, the key, the organization and the environment.
// Each setting is taken from the first of these that has it (README, "The CLI"):
//   1. flags (--api-url, --api-key, --org, --env, --operator-token);
//   2. environment variables KINO_API_URL, KINO_API_KEY, KINO_ORG, KINO_ENV, KINO_OPERATOR_TOKEN;
//   3. the profile named by --profile (or KINO_PROFILE), else the default profile of the config file;
//   4. the dev stack's `.kino/dev.json` (KINO_DEV_DIR, else the nearest `.kino/` from the working
//      directory upward), so commands work against `npm run dev` with no login.
// The config file is `$XDG_CONFIG_HOME/kino/config.json` (`~/.config/kino/config.json`), mode 600.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export interface Profile {
  apiUrl?: string;
  apiKey?: string;
  orgId?: string;
  envId?: string;
  /** For `kino nodes`: the control plane's OPERATOR_TOKEN. */
  operatorToken?: string;
}

export interface ConfigFile {
  defaultProfile?: string;
  profiles: Record<string, Profile>;
}

export type Setting = keyof Profile;

/** A resolved connection, and where each setting came from (shown by errors and `kino login`). */
export interface Connection {
  settings: Profile;
  sources: Partial<Record<Setting, string>>;
}

const envNames: Record<Setting, string> = {
  apiUrl: 'KINO_API_URL',
  apiKey: 'KINO_API_KEY',
  orgId: 'KINO_ORG',
  envId: 'KINO_ENV',
  operatorToken: 'KINO_OPERATOR_TOKEN',
};

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'kino', 'config.json');
}

export function readConfigFile(path = configPath()): ConfigFile {
  if (!existsSync(path)) return { profiles: {} };
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<ConfigFile>;
  return { defaultProfile: parsed.defaultProfile, profiles: parsed.profiles ?? {} };
}

/** Writes the whole file through a rename, readable by its owner only (it holds API keys). */
export function writeConfigFile(config: ConfigFile, path = configPath()): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, path);
  // A file that existed before keeps the mode it was created with: make sure.
  chmodSync(path, 0o600);
}

/** What `.kino/dev.json` holds (dev/src/stack/state-files.ts writes it). */
interface DevJson {
  apiUrl?: string;
  orgId?: string;
  envId?: string;
  apiKey?: string;
  operatorToken?: string;
}

export function findDevJson(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string | undefined {
  if (env.KINO_DEV_DIR) {
    const path = join(resolve(env.KINO_DEV_DIR), 'dev.json');
    return existsSync(path) ? path : undefined;
  }
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const path = join(dir, '.kino', 'dev.json');
    if (existsSync(path)) return path;
    if (dirname(dir) === dir) return undefined;
  }
}

export class ProfileNotFoundError extends Error {
  constructor(name: string, path: string) {
    super(`no profile named "${name}" in ${path}: create it with \`kino login --profile ${name}\``);
  }
}

/** Resolves every setting in the documented order. */
export function resolveConnection(
  flags: Profile & { profile?: string },
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Connection {
  const layers: { name: string; values: Profile }[] = [];
  layers.push({ name: 'flag', values: flags });
  layers.push({
    name: 'environment',
    values: Object.fromEntries(
      Object.entries(envNames).map(([setting, name]) => [setting, env[name] || undefined]),
    ) as Profile,
  });
  const path = configPath(env);
  const config = readConfigFile(path);
  const profileName = flags.profile ?? (env.KINO_PROFILE || undefined);
  if (profileName !== undefined) {
    const profile = config.profiles[profileName];
    if (!profile) throw new ProfileNotFoundError(profileName, path);
    layers.push({ name: `profile ${profileName}`, values: profile });
  } else if (config.defaultProfile && config.profiles[config.defaultProfile]) {
    layers.push({ name: `profile ${config.defaultProfile}`, values: config.profiles[config.defaultProfile]! });
  }
  const devJsonPath = findDevJson(env, cwd);
  if (devJsonPath) {
    const dev = JSON.parse(readFileSync(devJsonPath, 'utf8')) as DevJson;
    layers.push({
      name: devJsonPath,
      values: {
        apiUrl: dev.apiUrl,
        apiKey: dev.apiKey,
        orgId: dev.orgId,
        envId: dev.envId,
        operatorToken: dev.operatorToken,
      },
    });
  }

  const connection: Connection = { settings: {}, sources: {} };
  for (const setting of Object.keys(envNames) as Setting[]) {
    for (const layer of layers) {
      const value = layer.values[setting];
      if (value) {
        connection.settings[setting] = value;
        connection.sources[setting] = layer.name;
        break;
      }
    }
  }
  return connection;
}

/** How to set a missing setting, for error messages. */
export function howToSet(setting: Setting): string {
  const flag = {
    apiUrl: '--api-url',
    apiKey: '--api-key',
    orgId: '--org',
    envId: '--env',
    operatorToken: '--operator-token',
  }[setting];
  return `${flag}, ${envNames[setting]}, or \`kino login\``;
}

/** Where interrupted uploads are remembered for a rerun: `$XDG_STATE_HOME/kino/uploads` (`~/.local/state/kino/uploads`). */
export function uploadStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(base, 'kino', 'uploads');
}
