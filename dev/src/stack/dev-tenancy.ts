// The dev organization, environment and API key: made once through the operators' own commands
// (`kino admin ... --json`), the same path an operator takes, and re-used on every restart.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { openDatabase } from '@kino/database';
import { getEnvironment } from '@kino/database/repositories';
import { repoRoot } from '@kino/infra';
import { DevStackError } from './preflight.ts';
import { kinoArgs, kinoCommandExists } from './parts.ts';

const execFileAsync = promisify(execFile);

export interface DevTenancy {
  orgId: string;
  envId: string;
  apiKey: string;
}

/** Runs `kino <args> --json` against the dev database and returns its JSON answer. */
async function runAdmin<T>(args: string[], databaseUrl: string): Promise<T> {
  try {
    const { stdout } = await execFileAsync(process.execPath, kinoArgs(args, '--json'), {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      timeout: 60_000,
    });
    return JSON.parse(stdout) as T;
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    const output = (stderr || stdout || (error as Error).message).trim();
    throw new DevStackError(`\`kino ${args.join(' ')} --json\` failed: ${output}`);
  }
}

export function adminCommandsMissing(): string[] {
  return [
    ['admin', 'org', 'create'],
    ['admin', 'env', 'create'],
    ['admin', 'key', 'create'],
  ]
    .filter((words) => !kinoCommandExists(words))
    .map((words) => `kino ${words.join(' ')}`);
}

/** Whether the organization and environment of a previous run are still in the database. */
export async function tenancyExists(databaseUrl: string, orgId: string, envId: string): Promise<boolean> {
  const db = await openDatabase(databaseUrl);
  try {
    return (await getEnvironment(db, envId))?.org_id === orgId;
  } catch {
    return false; // no schema yet: nothing to re-use
  } finally {
    await db.destroy();
  }
}

/** A full-access test key (`svc_test_...`) for the dev organization. */
export async function createDevKey(databaseUrl: string, orgId: string): Promise<string> {
  const key = await runAdmin<{ apiKey?: string }>(
    ['admin', 'key', 'create', '--org', orgId, '--type', 'full'],
    databaseUrl,
  );
  if (!key.apiKey) throw new DevStackError('`kino admin key create` answered without an apiKey');
  return key.apiKey;
}

export async function createDevTenancy(databaseUrl: string): Promise<DevTenancy> {
  const org = await runAdmin<{ id?: string }>(['admin', 'org', 'create', '--name', 'Kino dev'], databaseUrl);
  if (!org.id) throw new DevStackError('`kino admin org create` answered without an id');
  // The environment and the key each need only the organization: one command's start-up for both.
  const [env, apiKey] = await Promise.all([
    runAdmin<{ id?: string }>(['admin', 'env', 'create', '--org', org.id, '--name', 'development'], databaseUrl),
    createDevKey(databaseUrl, org.id),
  ]);
  if (!env.id) throw new DevStackError('`kino admin env create` answered without an id');
  return { orgId: org.id, envId: env.id, apiKey };
}

/** Whether the key lists the environment through the API: the proof a client can use dev.json. */
export async function keyListsEnvironment(apiUrl: string, tenancy: DevTenancy): Promise<boolean> {
  const response = await fetch(`${apiUrl}/${tenancy.orgId}/environments`, {
    headers: { 'X-Api-Key': tenancy.apiKey },
    signal: AbortSignal.timeout(5000),
  });
  if (response.status !== 200) return false;
  const payload = (await response.json()) as { body?: { environments?: { id: string }[] } };
  return payload.body?.environments?.some((environment) => environment.id === tenancy.envId) ?? false;
}

/** Makes the dev user a member of the dev organization (idempotent), with the operators' command. */
export async function ensureDevMember(databaseUrl: string, orgId: string, email: string): Promise<void> {
  await runAdmin(['admin', 'member', 'add', '--org', orgId, '--email', email], databaseUrl);
}
