// The operators' way into the database (`kino admin ...`): DATABASE_URL, or else the database named in
// the dev stack's dev.json (in KINO_DEV_DIR when set, else `.kino/`). Migrations run first, like at every process start.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { devStateDir } from '@kino/infra';
import { migrateToLatest, openDatabase, type Db } from './database.ts';

export * from './repositories/organizations.ts';
export * from './repositories/environments.ts';
export * from './repositories/api-keys.ts';
export * from './repositories/operator-tokens.ts';
export * from './repositories/organization-members.ts';
export { KeyEncryption } from './keys/key-encryption.ts';
export { sealPlaintextSigningKeys } from './keys/seal-signing-keys.ts';
export type { Db } from './database.ts';

export class AdminDatabaseError extends Error {
  override name = 'AdminDatabaseError';
}

/** The dev stack's dev.json: in KINO_DEV_DIR when set, so `kino admin` reaches the stack that variable names. */
export function devStackFile(env: Record<string, string | undefined> = process.env): string {
  return join(devStateDir(env), 'dev.json');
}

export function resolveAdminDatabaseUrl(
  env: Record<string, string | undefined> = process.env,
  devJsonPath: string = devStackFile(env),
): string {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  if (existsSync(devJsonPath)) {
    const databaseUrl = (readJsonObject(devJsonPath) as { databaseUrl?: unknown }).databaseUrl;
    if (typeof databaseUrl === 'string' && databaseUrl) return databaseUrl;
    throw new AdminDatabaseError(`${devJsonPath} names no databaseUrl; set DATABASE_URL (postgres://...).`);
  }
  throw new AdminDatabaseError(
    `No database: set DATABASE_URL (postgres://...), or start the dev stack (npm run dev), which writes ${devJsonPath}.`,
  );
}

/**
 * The key encryption key for commands that seal signing keys (`kino admin playback-keys rotate`): the
 * API's KINO_KEY_ENCRYPTION_KEY, or else the dev stack's (in its dev.json).
 */
export function resolveKeyEncryptionKey(
  env: Record<string, string | undefined> = process.env,
  devJsonPath: string = devStackFile(env),
): string {
  if (env.KINO_KEY_ENCRYPTION_KEY) return env.KINO_KEY_ENCRYPTION_KEY;
  if (!env.DATABASE_URL && existsSync(devJsonPath)) {
    const value = (readJsonObject(devJsonPath) as { keyEncryptionKey?: unknown }).keyEncryptionKey;
    if (typeof value === 'string' && value) return value;
  }
  throw new AdminDatabaseError('No key encryption key: set KINO_KEY_ENCRYPTION_KEY to the value the API runs with.');
}

function readJsonObject(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new AdminDatabaseError(`${path} is not valid JSON (${(error as Error).message}); set DATABASE_URL instead.`);
  }
}

/** Opens the database for an admin command and brings its schema up to date; close it with `db.destroy()`. */
export async function openAdminDatabase(env: Record<string, string | undefined> = process.env): Promise<Db> {
  const db = await openDatabase(resolveAdminDatabaseUrl(env));
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}
