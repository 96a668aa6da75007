// Where the project keeps its local state (the dev stack's directory, the default cache and data
// directories of the processes).
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const kinoDir = join(repoRoot, '.kino');

/** The dev stack's state directory: KINO_DEV_DIR (a second stack's), else `.kino/` at the repo root. */
export function devStateDir(env: Record<string, string | undefined> = process.env): string {
  return resolve(env.KINO_DEV_DIR || kinoDir);
}
