// The farm's processes as the dev stack runs them: `node cli/bin/kino.js <command>` with the
// environment variables of the contract (README, "Running each part alone"). A command that has
// not been built yet is reported as missing instead of failing the whole stack.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@kino/infra';

export const kinoBin = join(repoRoot, 'cli', 'bin', 'kino.js');

/** Whether `kino <words...>` exists: oclif maps `kino node start` to src/commands/node/start.ts. */
export function kinoCommandExists(words: string[]): boolean {
  const base = join(repoRoot, 'cli', 'src', 'commands', ...words);
  return ['.ts', '/index.ts'].some((suffix) => existsSync(`${base}${suffix}`));
}

export function kinoArgs(words: string[], ...rest: string[]): string[] {
  return [kinoBin, ...words, ...rest];
}
