// Where the project keeps its local state and the tools setup installed.
import { existsSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const kinoDir = join(repoRoot, '.kino');
export const toolsBinDir = join(kinoDir, 'tools', 'venv', 'bin');

/** The dev stack's state directory: KINO_DEV_DIR (a second stack's), else `.kino/` at the repo root. */
export function devStateDir(env: Record<string, string | undefined> = process.env): string {
  return resolve(env.KINO_DEV_DIR || kinoDir);
}

/** Finds a binary on PATH, then in the project-local tools virtualenv (see infra/setup/setup.sh). */
export function findBinary(name: string): string {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), toolsBinDir]) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} is not installed: run \`bash infra/setup/setup.sh\` (npm run dev and npm test do)`);
}
