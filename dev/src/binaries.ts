// The service binaries the dev stack and tests run, found where dev/setup/setup.sh puts them.
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { kinoDir } from '@kino/infra';

export const toolsBinDir = join(kinoDir, 'tools', 'venv', 'bin');

/** Finds a binary on PATH, then in the project-local tools virtualenv (see dev/setup/setup.sh). */
export function findBinary(name: string): string {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), toolsBinDir]) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} is not installed: run \`bash dev/setup/setup.sh\` (npm run dev and npm test do)`);
}
