// The farm's processes as the dev stack runs them: `node dev/bin/kino.js <command>` (from sources) with the
// environment variables of the contract (README, "Running each part alone"). A command that has
// not been built yet is reported as missing instead of failing the whole stack.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@kino/infra';
import { kinoBin } from '../source-runner.ts';

/** The packages whose src/commands make up `kino`: the cli and the plugins it lists (process packages, @kino/dev). */
function commandPackages(): string[] {
  const { oclif } = JSON.parse(readFileSync(join(repoRoot, 'cli', 'package.json'), 'utf8')) as {
    oclif: { plugins: string[]; devPlugins: string[] };
  };
  const ours = [...oclif.plugins, ...oclif.devPlugins].filter((name) => name.startsWith('@kino/'));
  return ['cli', ...ours.map((name) => name.slice('@kino/'.length))];
}

/** Whether `kino <words...>` exists: oclif maps `kino node start` to src/commands/node/start.ts of one of them. */
export function kinoCommandExists(words: string[]): boolean {
  return commandPackages().some((pkg) => {
    const base = join(repoRoot, pkg, 'src', 'commands', ...words);
    return ['.ts', '/index.ts'].some((suffix) => existsSync(`${base}${suffix}`));
  });
}

export function kinoArgs(words: string[], ...rest: string[]): string[] {
  return [kinoBin, ...words, ...rest];
}
