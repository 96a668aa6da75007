// The dev stack's files under its state directory: secrets made once and kept (so a restart finds
// its data), dev.json for clients, dev.env for running one part alone, and the pid record.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBase62 } from '@kino/infra';
import type { DevStackLayout } from './layout.ts';

export interface DevSecrets {
  /** The farm token encode nodes present to the registry. */
  nodeToken: string;
  /** The API's OPERATOR_TOKEN, for `kino nodes` (also written to dev.json). */
  operatorToken: string;
  s3AccessKeyId: string;
  s3SecretAccessKey: string;
  /** The dashboard's client secret at the dev identity provider. */
  dashboardClientSecret: string;
  /** The API's DASHBOARD_SESSION_SECRET (signs the sign-in cookie, derives CSRF tokens). */
  dashboardSessionSecret: string;
  /** The API's KINO_KEY_ENCRYPTION_KEY (32 bytes, base64): seals the playback signing keys in the database. */
  keyEncryptionKey: string;
}

/** The `.kino/dev.json` contract (docs/decisions/operations.md#the-dev-stacks-state-file), plus `databaseUrl` for the admin CLI. */
export interface DevJson {
  apiUrl: string;
  deliveryUrl: string;
  orgId: string;
  envId: string;
  apiKey: string;
  databaseUrl: string;
  /** The API's OPERATOR_TOKEN: `kino nodes` finds it here. */
  operatorToken: string;
  /** Where each process serves its Prometheus metrics (docs/metrics.md): api, delivery, orchestrator, analytics, node-1, ... */
  metricsUrls: Record<string, string>;
  /** The dashboard (`${apiUrl origin}/dashboard`; empty on hosts of their own), its identity provider, and the dev user's sign-in there. */
  dashboardUrl: string;
  oidcIssuer: string;
  dashboardUser: { email: string; password: string };
  /** The API's KINO_KEY_ENCRYPTION_KEY: `kino admin playback-keys rotate` finds it here. */
  keyEncryptionKey: string;
}

/** Writes through a temp file and a rename, so a reader never sees half a file. */
export function writeFileAtomic(path: string, content: string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, content, { mode });
  renameSync(temp, path);
}

export function readJson<T>(path: string): T | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

export function loadOrCreateSecrets(layout: DevStackLayout): DevSecrets {
  const existing = readJson<Partial<DevSecrets>>(layout.secretsJson);
  if (
    existing?.nodeToken &&
    existing.operatorToken &&
    existing.s3AccessKeyId &&
    existing.s3SecretAccessKey &&
    existing.dashboardClientSecret &&
    existing.dashboardSessionSecret &&
    existing.keyEncryptionKey
  ) {
    return existing as DevSecrets;
  }
  // A state directory from before a secret existed keeps the ones it has (its data needs them).
  const secrets: DevSecrets = {
    nodeToken: existing?.nodeToken ?? `ntk_${randomBase62(40)}`,
    operatorToken: existing?.operatorToken ?? `otk_${randomBase62(40)}`,
    s3AccessKeyId: existing?.s3AccessKeyId ?? `kino${randomBase62(16)}`,
    s3SecretAccessKey: existing?.s3SecretAccessKey ?? randomBase62(40),
    dashboardClientSecret: existing?.dashboardClientSecret ?? randomBase62(40),
    dashboardSessionSecret: existing?.dashboardSessionSecret ?? randomBase62(48),
    // A state directory from before keys were sealed gets one now: the API seals its clear keys at start.
    keyEncryptionKey: existing?.keyEncryptionKey ?? randomBytes(32).toString('base64'),
  };
  writeFileAtomic(layout.secretsJson, `${JSON.stringify(secrets, null, 2)}\n`, 0o600);
  return secrets;
}

export function readDevJson(layout: DevStackLayout): DevJson | undefined {
  const value = readJson<Partial<DevJson>>(layout.devJson);
  return value?.orgId && value.envId && value.apiKey ? (value as DevJson) : undefined;
}

export function writeDevJson(layout: DevStackLayout, devJson: DevJson): void {
  // It holds an API key: readable by its owner only.
  writeFileAtomic(layout.devJson, `${JSON.stringify(devJson, null, 2)}\n`, 0o600);
}

/** `export NAME='value'` lines: `set -a; . .kino/dev.env` gives a shell the dev stack's settings. */
export function writeDevEnv(layout: DevStackLayout, env: Record<string, string>, header: string): void {
  const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
  const lines = Object.entries(env).map(([name, value]) => `${name}=${quote(value)}`);
  writeFileAtomic(layout.devEnv, `# ${header}\n${lines.join('\n')}\n`, 0o600);
}
